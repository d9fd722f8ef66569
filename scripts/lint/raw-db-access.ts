/**
 * Database access goes through db/ (query modules, one per aggregate). This check finds raw
 * knex table calls — `db("table")`, `trx("table")`, `deps.db("table")` — anywhere else, which
 * Biome cannot express as a rule. Run by `npm run lint`; exits 1 and names each place it finds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sourceFilesUnder } from "./source-files";

/** Folders whose code must reach tables through db/; db/ itself and test/ (which inspects rows) are exempt. */
export const CHECKED_FOLDERS = ["server", "workers", "commands", "operations", "queues", "lib", "launcher", "offline-model", "ops", "scripts"];

/** Measuring harnesses set up and inspect their own fixture rows, as tests do. */
const EXEMPT = [/^scripts\/(?:eval|bench)(?:\/|\.ts$)/];

/** A knex builder called with a table name: `db(`, `trx(`, `knex(`, `tx(` or `<anything>.db(`, then a string. */
const RAW_TABLE_CALL = /(?:\b(?:db|trx|knex|tx)|\.db)\s*(?:<[^>()]*>)?\(\s*["'`][a-z_]/g;

export interface RawDbAccess {
  file: string;
  line: number;
  text: string;
}

export function findRawDbAccess(file: string, source: string): RawDbAccess[] {
  const found: RawDbAccess[] = [];
  const lines = source.split("\n");
  lines.forEach((text, index) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(text)) return;
    RAW_TABLE_CALL.lastIndex = 0;
    if (RAW_TABLE_CALL.test(text)) found.push({ file, line: index + 1, text: text.trim() });
  });
  return found;
}

export function scanTree(root: string): RawDbAccess[] {
  return sourceFilesUnder(root, CHECKED_FOLDERS)
    .filter((file) => !EXEMPT.some((pattern) => pattern.test(file)))
    .flatMap((file) => findRawDbAccess(file, readFileSync(join(root, file), "utf8")));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = scanTree(process.cwd());
  for (const { file, line, text } of found) process.stderr.write(`${file}:${line}: raw table access outside db/ (add a db/queries function): ${text}\n`);
  if (found.length > 0) process.exit(1);
  process.stdout.write(`raw-db-access: no raw table calls outside db/ (${CHECKED_FOLDERS.join(", ")})\n`);
}
