/**
 * Where `npm start` keeps its PostgreSQL cluster. Normally `DATA_DIR/postgres`. As root the
 * server runs as the `postgres` OS user, who must be able to reach that directory; a checkout
 * under a private home (Debian makes `/root` 0700) is out of its reach, and changing the
 * permissions of someone's home is not ours to do. Then the cluster lives outside the checkout,
 * in `/var/lib/skillnet-chat/<hash of DATA_DIR>/postgres`, and `DATA_DIR/postgres-location`
 * records where: a restart finds it there, `EMBEDDED_POSTGRES=auto` keeps using it, and deleting
 * `DATA_DIR` still starts from zero (a cluster at that path with no record pointing at it belonged
 * to a deleted `DATA_DIR` of the same path, and is removed before a new one is made).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Parent of the clusters kept outside a checkout (the FHS place for a program's state). */
export const OUTSIDE_CLUSTERS_ROOT = "/var/lib/skillnet-chat";

const LOCATION_FILE = "postgres-location";

/** The cluster directory inside DATA_DIR. */
export const insideClusterDir = (dataDir: string): string => join(dataDir, "postgres");

/** The cluster directory outside the checkout for this DATA_DIR (an absolute path). */
export function outsideClusterDir(dataDir: string, root = OUTSIDE_CLUSTERS_ROOT): string {
  return join(root, createHash("sha256").update(dataDir).digest("hex").slice(0, 16), "postgres");
}

/** The cluster directory DATA_DIR records, when its cluster lives outside it. */
export function recordedClusterDir(dataDir: string): string | undefined {
  const file = join(dataDir, LOCATION_FILE);
  return existsSync(file) ? readFileSync(file, "utf8").trim() || undefined : undefined;
}

/** Where this DATA_DIR's cluster is, or would be made: the recorded place, else inside it. */
export const clusterDirOf = (dataDir: string): string => recordedClusterDir(dataDir) ?? insideClusterDir(dataDir);

/**
 * Makes way for a new cluster outside the checkout: removes what a deleted DATA_DIR of the same
 * path left there, and creates the parent (root's, searchable by all) that the cluster goes in.
 * `record` is called once the cluster exists, so a failed initdb records nothing.
 */
export function prepareOutsideClusterDir(dataDir: string, root = OUTSIDE_CLUSTERS_ROOT): { dir: string; replaced: boolean; record: () => void } {
  const dir = outsideClusterDir(dataDir, root);
  const home = dirname(dir);
  const replaced = existsSync(dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(home, { recursive: true, mode: 0o755 });
  // Which checkout this is, for an operator looking at /var/lib/skillnet-chat.
  writeFileSync(join(home, "data-dir"), `${dataDir}\n`);
  return { dir, replaced, record: () => writeFileSync(join(dataDir, LOCATION_FILE), `${dir}\n`) };
}
