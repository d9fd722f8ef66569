/**
 * Routes read; commands write. A write to the database is a command (commands/) that owns its
 * transaction and records its audit event, so server/ (routes, sockets, the SCIM and sign-in
 * edges) may import only read functions of db/queries. A write function is recognisable by its
 * module: it lives in `db/queries/*-writes.ts`, whose functions take the command's transaction
 * and never open their own. This check finds, anywhere under server/:
 *
 * - a value import from a `db/queries/*-writes` module (`import type` is fine: a row's shape is
 *   not a write);
 * - an import of a function that writes from any other db/queries module (a mixed module: its
 *   exported function's own text calls `.insert(`, `.update(`, `.del(`, `.delete(`,
 *   `.increment(`, `.decrement(` or `.transaction(`), unless the name is in `TECHNICAL_WRITES` below, the documented list of
 *   bookkeeping that no person decides and so goes unaudited;
 * - an import of `commands/transaction` (a route that opens a command's transaction is a command
 *   written in the wrong place);
 * - a `.transaction(` call (the same, by hand).
 *
 * Run by `npm run lint`; exits 1 and names each place it finds.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { sourceFilesUnder } from "./source-files";

export const CHECKED_FOLDERS = ["server"];

export interface RouteWrite {
  file: string;
  line: number;
  text: string;
  why: string;
}

/**
 * Writes a route may still call directly: technical bookkeeping, not a change a person asks for,
 * so no audit event and no command (docs/architecture.md, "Where a write and its audit event go").
 * Keyed `module:function`, each with its reason.
 */
export const TECHNICAL_WRITES: Record<string, string> = {
  "db/queries/integration-keys:touchIntegrationKey": "a key's last_used_at, stamped on each request it authenticates",
  "db/queries/scim-tokens:touchScimToken": "the SCIM token's last_used_at, stamped on each request it authenticates",
  "db/queries/refresh-tokens:issueRefreshToken": "a sign-in's refresh token: the session's own rotation bookkeeping",
  "db/queries/refresh-tokens:spendRefreshToken": "refresh-token rotation: the spent token is marked used",
  "db/queries/refresh-tokens:revokeRefreshFamily": "a sign-out ends that sign-in's token family",
  "db/queries/refresh-tokens:revokeRefreshTokensOfUser":
    "a refresh that finds the person deactivated ends all their families (the deactivation is the audited change)",
};

/** A write call on a query builder (`.del()` and `.delete()` included). */
const WRITE_CALL = /\.(?:insert|update|del|delete|increment|decrement|transaction)\s*\(/;

/** A top-level declaration: where one function's text starts and the previous one's ends. */
const DECLARATION = /^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type)\s+(\w+)/gm;

/**
 * The exported functions of a db/queries module whose own text writes. Kept simple on purpose:
 * a write reached only through an unexported helper is not seen, so a write function lives in a
 * `*-writes` module or calls the builder itself.
 */
export function writingExports(source: string): Set<string> {
  const starts = [...source.matchAll(DECLARATION)].map((m) => ({ name: m[1] ?? "", at: m.index ?? 0, exported: m[0].startsWith("export") }));
  const writing = new Set<string>();
  starts.forEach((start, i) => {
    const text = source.slice(start.at, starts[i + 1]?.at ?? source.length);
    const code = text
      .split("\n")
      .filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line))
      .join("\n");
    if (start.exported && WRITE_CALL.test(code)) writing.add(start.name);
  });
  return writing;
}

/** The value names an import clause brings in (`{ a, type B, c as d }` → a, c); a namespace import (`* as q`) brings in all of `exported`. */
function importedValues(clause: string, exported: Set<string>): string[] {
  if (clause.trim().startsWith("*")) return [...exported];
  if (!clause.trim().startsWith("{")) return [];
  return clause
    .replace(/^\s*\{|\}\s*$/g, "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name && !name.startsWith("type "))
    .map((name) => name.split(/\s+as\s+/)[0]?.trim() ?? "");
}

/** Reads a module of the tree by its path relative to the root (`db/queries/users`), or undefined. */
export type ModuleReader = (modulePath: string) => string | undefined;

/** One import statement (possibly over several lines) and the module it names. */
const IMPORT = /^\s*import\s+(type\s+)?([\s\S]*?)\s+from\s+["']([^"']+)["'];?/gm;

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split("\n").length;
}

/** Whether every imported name is a type (`import { type A, type B }`), so nothing callable comes in. */
function typesOnly(clause: string): boolean {
  const names = clause
    .replace(/^\{|\}$/g, "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  return clause.trim().startsWith("{") && names.every((name) => name.startsWith("type "));
}

export function findRouteWrites(file: string, source: string, readModule: ModuleReader = () => undefined): RouteWrite[] {
  const found: RouteWrite[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const [statement, typeKeyword, clause = "", from = ""] = match;
    const at = { file, line: lineOf(source, match.index ?? 0), text: statement.trim().replace(/\s+/g, " ") };
    if (/(^|\/)db\/queries\/[\w-]+-writes$/.test(from) && !typeKeyword && !typesOnly(clause))
      found.push({ ...at, why: "a write function of db/queries: call the command that owns the write (commands/)" });
    const mixed = /^\./.test(from) ? normalize(join(dirname(file), from)) : "";
    if (/^db\/queries\/[\w-]+$/.test(mixed) && !mixed.endsWith("-writes") && !typeKeyword) {
      const moduleSource = readModule(mixed);
      const writing = moduleSource === undefined ? new Set<string>() : writingExports(moduleSource);
      for (const name of importedValues(clause, writing))
        if (writing.has(name) && !(`${mixed}:${name}` in TECHNICAL_WRITES))
          found.push({ ...at, why: `${name} writes (db/queries module with writes): call the command that owns the write (commands/)` });
    }
    if (/(^|\/)commands\/transaction$/.test(from) && !typeKeyword) found.push({ ...at, why: "a command's transaction: the change belongs in a command" });
  }
  source.split("\n").forEach((text, index) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(text)) return;
    if (/\.transaction\s*\(/.test(text))
      found.push({ file, line: index + 1, text: text.trim(), why: "a transaction opened by hand: the change belongs in a command" });
  });
  return found;
}

export function scanTree(root: string): RouteWrite[] {
  const readModule: ModuleReader = (modulePath) => {
    const path = join(root, `${modulePath}.ts`);
    return existsSync(path) ? readFileSync(path, "utf8") : undefined;
  };
  return sourceFilesUnder(root, CHECKED_FOLDERS).flatMap((file) => findRouteWrites(file, readFileSync(join(root, file), "utf8"), readModule));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = scanTree(process.cwd());
  for (const { file, line, text, why } of found) process.stderr.write(`${file}:${line}: ${why}: ${text}\n`);
  if (found.length > 0) process.exit(1);
  process.stdout.write(`route-writes: server/ imports no write function of db/queries and opens no transaction (writes go through commands/)\n`);
}
