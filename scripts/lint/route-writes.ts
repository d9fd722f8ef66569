/**
 * Routes read; commands write. A write to the database is a command (commands/) that owns its
 * transaction and records its audit event, so server/ (routes, sockets, the SCIM and sign-in
 * edges) may import only read functions of db/queries. A write function is recognisable by its
 * module: it lives in `db/queries/*-writes.ts`, whose functions take the command's transaction
 * and never open their own. This check finds, anywhere under server/:
 *
 * - a value import from a `db/queries/*-writes` module (`import type` is fine: a row's shape is
 *   not a write);
 * - an import of `commands/transaction` (a route that opens a command's transaction is a command
 *   written in the wrong place);
 * - a `.transaction(` call (the same, by hand).
 *
 * Run by `npm run lint`; exits 1 and names each place it finds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sourceFilesUnder } from "./source-files";

export const CHECKED_FOLDERS = ["server"];

export interface RouteWrite {
  file: string;
  line: number;
  text: string;
  why: string;
}

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

export function findRouteWrites(file: string, source: string): RouteWrite[] {
  const found: RouteWrite[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const [statement, typeKeyword, clause = "", from = ""] = match;
    const at = { file, line: lineOf(source, match.index ?? 0), text: statement.trim().replace(/\s+/g, " ") };
    if (/(^|\/)db\/queries\/[\w-]+-writes$/.test(from) && !typeKeyword && !typesOnly(clause))
      found.push({ ...at, why: "a write function of db/queries: call the command that owns the write (commands/)" });
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
  return sourceFilesUnder(root, CHECKED_FOLDERS).flatMap((file) => findRouteWrites(file, readFileSync(join(root, file), "utf8")));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = scanTree(process.cwd());
  for (const { file, line, text, why } of found) process.stderr.write(`${file}:${line}: ${why}: ${text}\n`);
  if (found.length > 0) process.exit(1);
  process.stdout.write(`route-writes: server/ imports no write function of db/queries and opens no transaction (writes go through commands/)\n`);
}
