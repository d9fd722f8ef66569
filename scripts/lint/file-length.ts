/**
 * No product file over 330 lines. Past that a module has almost always taken on a second job (a
 * client that also retries and accounts usage, a gateway that also fans out a feed); splitting it
 * along those jobs keeps each one findable by its name. Moving lines into a file called `-part2`
 * would pass this check and miss its point: the split is by responsibility, and review holds that.
 * Run by `npm run lint`; exits 1 and names each file with its line count.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sourceFilesUnder } from "./source-files";

export const MAX_LINES = 330;

/** The product: what ships and runs. test/, scripts/ and bench/ are tools around it, unchecked. */
export const PRODUCT_FOLDERS = ["commands", "db", "lib", "launcher", "offline-model", "ops", "queues", "server", "workers", "web/src"];

/** Source of every product folder, and the browser client's `.tsx`. */
const PRODUCT_SOURCE = /\.(?:ts|tsx|mts|js|mjs)$/;

/**
 * Not code to split: migrations are the schema's history (written once, never edited), the demo
 * organisation's seed data is content (its courses, documents and people), long as content is,
 * and so are the pages' translation catalogs (one message per line, one file per language).
 */
const EXEMPT = [/^db\/migrations\//, /^db\/seeds\/demo-(?:courses|documents|people)\.ts$/, /^web\/src\/lib\/i18n\/catalog\/[a-z]{2}\.ts$/];

/**
 * Files allowed past the limit for a while (a split under way on another branch), each with a
 * comment saying why. None now. A file listed here that is within the limit (or gone) fails the
 * check, so the list can only shrink.
 */
export const ALLOWED_LONG_FILES: readonly string[] = [];

export interface LengthProblem {
  file: string;
  lines: number;
  /** `too-long`: over MAX_LINES; `stale-allowance`: listed in ALLOWED_LONG_FILES but within the limit or gone. */
  kind: "too-long" | "stale-allowance";
}

/** Lines as `wc -l` counts them on a file that ends with a newline: a last line without one still counts. */
export function countLines(source: string): number {
  if (source === "") return 0;
  const breaks = source.split("\n").length - 1;
  return source.endsWith("\n") ? breaks : breaks + 1;
}

export function productFiles(root: string): string[] {
  return sourceFilesUnder(root, PRODUCT_FOLDERS, PRODUCT_SOURCE).filter((file) => !EXEMPT.some((pattern) => pattern.test(file)));
}

export function scanTree(root: string, allowed: readonly string[] = ALLOWED_LONG_FILES): LengthProblem[] {
  const problems: LengthProblem[] = [];
  for (const file of productFiles(root)) {
    const lines = countLines(readFileSync(join(root, file), "utf8"));
    if (lines > MAX_LINES && !allowed.includes(file)) problems.push({ file, lines, kind: "too-long" });
  }
  for (const file of allowed) {
    const lines = existsSync(join(root, file)) ? countLines(readFileSync(join(root, file), "utf8")) : 0;
    if (lines <= MAX_LINES) problems.push({ file, lines, kind: "stale-allowance" });
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = scanTree(process.cwd());
  for (const { file, lines, kind } of problems) {
    const why =
      kind === "too-long"
        ? `${lines} lines, over ${MAX_LINES}: split it by responsibility (one module per job, each named for what it holds)`
        : `${lines} lines, within ${MAX_LINES} (or gone): remove it from ALLOWED_LONG_FILES in scripts/lint/file-length.ts`;
    process.stderr.write(`${file}: ${why}\n`);
  }
  if (problems.length > 0) process.exit(1);
  process.stdout.write(`file-length: no product file over ${MAX_LINES} lines (${ALLOWED_LONG_FILES.length} allowed while being split)\n`);
}
