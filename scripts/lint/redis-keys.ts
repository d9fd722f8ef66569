/**
 * One registry of Redis keys: every key the product writes is built by queues/keys.ts, where its
 * family declares its owner and TTL, so the purges and the erasure can find it. A module that
 * spelled a `skillnet:` key itself, or tagged one with `ownedKey` directly, would write keys no
 * purge knows of. This check finds such strings and calls in the product's folders; the registry
 * and the tagging primitive it uses (queues/slots.ts) are the only places allowed.
 * Run by `npm run lint`; exits 1 and names each place it finds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sourceFilesUnder } from "./source-files";

export const CHECKED_FOLDERS = ["server", "workers", "commands", "queues", "db", "lib", "operations", "ops"];

/** The registry and the hash-tag primitive it builds keys with. */
export const REGISTRY_FILES = ["queues/keys.ts", "queues/slots.ts"];

/** A string or template literal that starts with the key prefix, or a call of the tagging primitive. */
const KEY_PREFIX_LITERAL = /["'`]skillnet:/;
const OWNED_KEY_CALL = /(?<!function\s)\bownedKey\s*\(/;

export interface RedisKeyBuilt {
  file: string;
  line: number;
  text: string;
}

/** Lines of `source` that build a key outside the registry; comment lines (` * `, `//`) are skipped. */
export function findKeysBuiltOutside(file: string, source: string): RedisKeyBuilt[] {
  return source.split("\n").flatMap((text, index) => {
    const code = text.trimStart();
    if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return [];
    return KEY_PREFIX_LITERAL.test(code) || OWNED_KEY_CALL.test(code) ? [{ file, line: index + 1, text: code }] : [];
  });
}

export function scanTree(root: string): RedisKeyBuilt[] {
  return sourceFilesUnder(root, CHECKED_FOLDERS)
    .filter((file) => !REGISTRY_FILES.includes(file))
    .flatMap((file) => findKeysBuiltOutside(file, readFileSync(join(root, file), "utf8")));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = scanTree(process.cwd());
  for (const { file, line, text } of found) {
    process.stderr.write(`${file}:${line}: a Redis key built outside the registry (declare its family in queues/keys.ts and use redisKey): ${text}\n`);
  }
  if (found.length > 0) process.exit(1);
  process.stdout.write(`redis-keys: every skillnet: key is built by the registry (${REGISTRY_FILES.join(", ")})\n`);
}
