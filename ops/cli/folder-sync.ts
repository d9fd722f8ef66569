/**
 * One pass of `npm run sync`: a folder mirrored into an organisation's documents over the
 * integration API (PUT/DELETE/GET /api/v1/integrations/documents). Each file's external id is
 * `<source>:<path relative to the folder>`, so only documents of this source are ever removed,
 * and a pass decides everything from the folder and the server's list as they are now: a pass
 * killed mid-way and run again ends where an uninterrupted one would.
 *
 * - a file the server lacks is added; one whose SHA-256 differs from the stored version's is
 *   pushed again (changed); the same hash is kept (a touched-but-unchanged file costs no upload);
 *   the same hash whose indexing FAILED is pushed again: indexed again when the cause was ours
 *   (retried), else reported as skipped with the reason the file could not be read;
 * - a new path with the bytes of a gone one is a rename (or a move): the document takes the new
 *   id and keeps its chunks and vectors, nothing is indexed again;
 * - any other stored document whose file is gone is removed, before anything is added, so bytes
 *   that moved to a path that had other bytes no longer clash with their old document
 *   (UNIQUE(org_id, content_hash));
 * - an unsupported format, a file too large, or bytes another document already has are skipped
 *   with their reason; nothing else stops the pass.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { formatFromFilename } from "../../lib/document-formats";

/** What the server lists of one of this source's documents. */
export interface StoredDocument {
  external_id: string;
  content_hash: string;
  status: string;
}

export interface LocalFile {
  /** Relative to the folder, with `/` whatever the platform. */
  path: string;
  absolute: string;
}

export interface SyncReport {
  added: string[];
  changed: string[];
  retried: string[];
  /** Files whose bytes moved to another path: the document took the new id and kept its vectors. */
  renamed: Array<{ from: string; to: string }>;
  kept: string[];
  removed: string[];
  skipped: Array<{ path: string; reason: string }>;
  failed: Array<{ path: string; reason: string }>;
}

/** How a pass reaches the server (sync-client.ts speaks HTTP). */
export interface SyncApi {
  list(prefix: string): Promise<StoredDocument[]>;
  /** `failed`: why the stored version, unchanged, could not be indexed (the file's own problem), else null. */
  put(
    externalId: string,
    file: { name: string; bytes: Buffer },
  ): Promise<{ ok: true; result: string; failed: string | null } | { ok: false; skip: boolean; reason: string }>;
  remove(externalId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  rename(from: string, to: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** Every regular file under the folder, dot-files and dot-folders (.git, .DS_Store) left out, in a stable order. */
export async function listFolder(folder: string): Promise<LocalFile[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: LocalFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = join(entry.parentPath, entry.name);
    const path = relative(folder, absolute).split(sep).join("/");
    if (path.split("/").some((part) => part.startsWith("."))) continue;
    files.push({ path, absolute });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export const externalIdOf = (source: string, path: string): string => `${source}:${path}`;

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export async function syncFolder(
  api: SyncApi,
  options: { folder: string; source: string; concurrency: number; onLine?: (line: string) => void },
): Promise<SyncReport> {
  const report: SyncReport = { added: [], changed: [], retried: [], renamed: [], kept: [], removed: [], skipped: [], failed: [] };
  const say = options.onLine ?? (() => undefined);
  const prefix = externalIdOf(options.source, "");
  const [files, stored] = await Promise.all([listFolder(options.folder), api.list(prefix)]);
  const storedById = new Map(stored.map((document) => [document.external_id, document]));
  const supported = files.filter((file) => {
    if (formatFromFilename(file.path)) return true;
    report.skipped.push({ path: file.path, reason: "unsupported format" });
    say(`skipped  ${file.path}: unsupported format`);
    return false;
  });
  const hashes = new Map<string, string>();
  await eachLimited(supported, options.concurrency, async (file) => {
    hashes.set(
      file.path,
      createHash("sha256")
        .update(await readFile(file.absolute))
        .digest("hex"),
    );
  });

  const present = new Set(supported.map((file) => externalIdOf(options.source, file.path)));
  const gone = stored.filter((document) => !present.has(document.external_id));
  // A new path with the bytes of a gone one is that file renamed or moved: its document takes the new id, vectors and all.
  const goneByHash = new Map<string, StoredDocument[]>();
  for (const document of gone)
    if (document.status !== "FAILED") goneByHash.set(document.content_hash, [...(goneByHash.get(document.content_hash) ?? []), document]);
  const renames: Array<{ from: StoredDocument; to: LocalFile }> = [];
  for (const file of supported) {
    if (storedById.has(externalIdOf(options.source, file.path))) continue;
    const from = goneByHash.get(hashes.get(file.path)!)?.shift();
    if (from) renames.push({ from, to: file });
  }
  const renamedFrom = new Set<string>();
  const renamedTo = new Set<string>();
  await eachLimited(renames, options.concurrency, async ({ from, to }) => {
    const moved = await api.rename(from.external_id, externalIdOf(options.source, to.path));
    if (!moved.ok) return; // removed and added below instead
    renamedFrom.add(from.external_id);
    renamedTo.add(to.path);
    const path = from.external_id.slice(prefix.length);
    report.renamed.push({ from: path, to: to.path });
    say(`renamed  ${path} → ${to.path}`);
  });

  // Removals before additions: a file whose bytes moved to another path no longer clashes with its old document.
  await eachLimited(
    gone.filter((document) => !renamedFrom.has(document.external_id)),
    options.concurrency,
    async (document) => {
      const path = document.external_id.slice(prefix.length);
      const removed = await api.remove(document.external_id);
      if (removed.ok) {
        report.removed.push(path);
        say(`removed  ${path}`);
      } else {
        report.failed.push({ path, reason: removed.reason });
        say(`failed   ${path}: ${removed.reason}`);
      }
    },
  );

  await eachLimited(
    supported.filter((file) => !renamedTo.has(file.path)),
    options.concurrency,
    async (file) => {
      const externalId = externalIdOf(options.source, file.path);
      const before = storedById.get(externalId);
      if (before && before.content_hash === hashes.get(file.path) && before.status !== "FAILED") {
        report.kept.push(file.path);
        return;
      }
      const put = await api.put(externalId, { name: file.path.slice(file.path.lastIndexOf("/") + 1), bytes: await readFile(file.absolute) });
      if (!put.ok) {
        (put.skip ? report.skipped : report.failed).push({ path: file.path, reason: put.reason });
        say(`${put.skip ? "skipped " : "failed  "} ${file.path}: ${put.reason}`);
        return;
      }
      if (put.result === "unchanged" && put.failed) {
        report.skipped.push({ path: file.path, reason: `could not be indexed: ${put.failed}` });
        say(`skipped  ${file.path}: could not be indexed: ${put.failed}`);
        return;
      }
      // What the server did decides the count (a pass re-run after a kill finds some already stored).
      const bucket = put.result === "created" ? "added" : put.result === "updated" ? "changed" : put.result === "retried" ? "retried" : "kept";
      report[bucket].push(file.path);
      if (bucket !== "kept") say(`${bucket.padEnd(8)} ${file.path}`);
    },
  );
  for (const list of [report.added, report.changed, report.retried, report.kept, report.removed]) list.sort();
  report.renamed.sort((a, b) => (a.to < b.to ? -1 : 1));
  return report;
}

export function summaryLine(report: SyncReport): string {
  const counts = countsOf(report);
  return Object.entries(counts)
    .map(([name, count]) => `${count} ${name}`)
    .join(", ");
}

export function countsOf(report: SyncReport): Record<keyof SyncReport, number> {
  return {
    added: report.added.length,
    changed: report.changed.length,
    retried: report.retried.length,
    renamed: report.renamed.length,
    kept: report.kept.length,
    removed: report.removed.length,
    skipped: report.skipped.length,
    failed: report.failed.length,
  };
}
