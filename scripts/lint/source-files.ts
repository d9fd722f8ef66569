/** The source files the tree checks in scripts/lint/ read: every `.ts`/`.mts`/`.js`/`.mjs` (or what `names` matches) under the given folders. */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const SOURCE_NAMES = /\.(?:ts|mts|js|mjs)$/;

function sourceFiles(dir: string, names: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path, names);
    return names.test(entry.name) ? [path] : [];
  });
}

/** Paths relative to `root` (`queues/producer.ts`); a folder the tree does not have is skipped. */
export function sourceFilesUnder(root: string, folders: string[], names = SOURCE_NAMES): string[] {
  return folders
    .filter((folder) => existsSync(join(root, folder)))
    .flatMap((folder) => sourceFiles(join(root, folder), names))
    .map((path) => relative(root, path));
}
