/**
 * Which embedded database `npm start` runs (EMBEDDED_POSTGRES): a PostgreSQL cluster of its own
 * on the installed server, or PGlite. `auto` follows what DATA_DIR already holds, so a data
 * directory from an earlier run keeps working whichever engine wrote it; a new one gets the
 * server when the machine has one with pgvector. The reason is returned so the launcher can say it.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { clusterDirOf } from "./cluster-home";
import { findPostgresServer, isCluster, type ServerLookup } from "./postgres-cluster";

export type EmbeddedPostgresMode = "auto" | "server" | "pglite";

export type DatabaseChoice = { engine: "server"; bindir: string; dataDir: string; why: string } | { engine: "pglite"; dataDir: string; why: string };

/** DATA_DIR/postgres, or the directory outside the checkout DATA_DIR records (cluster-home.ts). */
export const serverDataDir = (dataDir: string): string => clusterDirOf(dataDir);
export const pgliteDataDir = (dataDir: string): string => join(dataDir, "pglite");

const holdsData = (dir: string): boolean => existsSync(dir) && readdirSync(dir).length > 0;

export function chooseEmbeddedDatabase(mode: EmbeddedPostgresMode, dataDir: string, find: () => ServerLookup = findPostgresServer): DatabaseChoice {
  const serverDir = serverDataDir(dataDir);
  const pgliteDir = pgliteDataDir(dataDir);
  const pglite = (why: string): DatabaseChoice => ({ engine: "pglite", dataDir: pgliteDir, why });
  const server = (why: string): DatabaseChoice => {
    const found = find();
    if (!found.found) throw new Error(`${why}, but ${found.reason}`);
    return { engine: "server", bindir: found.bindir, dataDir: serverDir, why };
  };

  if (mode === "pglite") return pglite("EMBEDDED_POSTGRES=pglite");
  if (mode === "server") return server("EMBEDDED_POSTGRES=server");
  if (isCluster(serverDir)) return server(`${serverDir} holds a PostgreSQL cluster`);
  if (holdsData(pgliteDir)) {
    return pglite(`${pgliteDir} holds the data of an earlier PGlite run (EMBEDDED_POSTGRES=server starts a new, empty PostgreSQL database instead)`);
  }
  const found = find();
  if (found.found) return { engine: "server", bindir: found.bindir, dataDir: serverDir, why: `PostgreSQL with pgvector is installed (${found.bindir})` };
  return pglite(`no PostgreSQL server to run: ${found.reason}`);
}
