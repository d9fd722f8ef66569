/**
 * One logging style: a process's entry point makes its logger (`componentLogger` from
 * lib/logger.ts), and everything below it is handed one (`deps.log`, a constructor option, a
 * parameter) and adds its context with `.child({...})`. A module that made its own would write
 * lines a test's or a caller's logger never sees, without the job and turn ids its caller binds.
 * Biome's import restrictions are per folder and cannot exempt the entry points without losing
 * the layer rules there, so this check finds the imports that create loggers in library code.
 * Run by `npm run lint`; exits 1 and names each place it finds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sourceFilesUnder } from "./source-files";

/** Library folders: their code receives a logger. launcher/, ops/cli/, scripts/ and test/ are processes and tools. */
export const CHECKED_FOLDERS = ["server", "workers", "commands", "operations", "queues", "db", "lib", "offline-model"];

/** The process entry points (and the start-up modules they call) that make the process's logger; lib/logger.ts makes the root. */
export const ENTRY_POINTS = ["server/main.ts", "server/server.ts", "workers/main.ts", "workers/host.ts", "offline-model/main.ts", "lib/logger.ts"];

/** What lib/logger.ts exports that makes a logger (its other exports, `withLogContext` and the like, add context). */
const CREATORS = new Set(["componentLogger", "getLogger"]);

/** `import … from "…"` statements, over several lines if need be; `import type` ones never create anything. */
const IMPORT = /^\s*import\s+(?!type\s)([^;]*?)\s+from\s+["']([^"']+)["']/gm;

export interface LoggerCreation {
  file: string;
  line: number;
  text: string;
}

/** The value names a clause imports: `pino`, `{ componentLogger, type Logger }` → pino, componentLogger; `* as p` → *. */
function importedValues(clause: string): string[] {
  const braces = /\{([^}]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[^}]*\}/, "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => (part.startsWith("*") ? "*" : part));
  const named = (braces?.[1] ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part && !part.startsWith("type "))
    .map((part) => part.split(/\s+as\s+/)[0]!.trim());
  return [...outside, ...named];
}

export function findLoggerCreation(file: string, source: string): LoggerCreation[] {
  const found: LoggerCreation[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const [statement, clause, from] = match as unknown as [string, string, string];
    const values = importedValues(clause);
    const creates = from === "pino" ? values.length > 0 : /(?:^|\/)lib\/logger$/.test(from) && values.some((name) => CREATORS.has(name));
    if (!creates) continue;
    const line = source.slice(0, match.index + statement.indexOf("import")).split("\n").length;
    found.push({ file, line, text: statement.trim().replace(/\s+/g, " ") });
  }
  return found;
}

export function scanTree(root: string): LoggerCreation[] {
  return sourceFilesUnder(root, CHECKED_FOLDERS)
    .filter((file) => !ENTRY_POINTS.includes(file))
    .flatMap((file) => findLoggerCreation(file, readFileSync(join(root, file), "utf8")));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = scanTree(process.cwd());
  for (const { file, line, text } of found) {
    process.stderr.write(
      `${file}:${line}: library code creates a logger (take one: deps.log, a constructor option or a parameter, then .child({...})): ${text}\n`,
    );
  }
  if (found.length > 0) process.exit(1);
  process.stdout.write(`logger-creation: loggers are made only by the entry points (${ENTRY_POINTS.join(", ")})\n`);
}
