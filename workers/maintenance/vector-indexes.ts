/**
 * The `vector-indexes` sweep: every organisation past RETRIEVAL_EXACT_MAX_CHUNKS gets its own
 * HNSW index, built concurrently (db/queries/org-vector-indexes.ts), largest first. Searches of
 * an organisation stay exact until its index is valid, so a slow or failed build costs speed,
 * never an answer. A run keeps building for up to a minute and then yields the queue (the
 * maintenance queue runs one job at a time per worker, and the lost-turn sweep waits behind it);
 * the rest are built by the next runs.
 */
import { buildOrgVectorIndex, orgsNeedingVectorIndex, type OrgVectorIndexBuild } from "../../db/queries/org-vector-indexes";
import { databaseVectorDimensions } from "../../db/queries/vector-columns";
import type { WorkerDeps } from "../deps";

/** pgvector's HNSW indexes vectors of at most this many dimensions; wider ones stay exact. */
const HNSW_MAX_DIMENSIONS = 2000;
/** After this long a run starts no further build. */
const RUN_BUDGET_MS = 60_000;

export interface VectorIndexSweep {
  built: string[];
  /** Organisations another worker was building (its advisory lock held). */
  locked: string[];
  /** Organisations still waiting for a later run. */
  pending: number;
}

export async function buildMissingVectorIndexes(deps: Pick<WorkerDeps, "db" | "config">, budgetMs = RUN_BUDGET_MS): Promise<VectorIndexSweep> {
  const sweep: VectorIndexSweep = { built: [], locked: [], pending: 0 };
  const dimensions = await databaseVectorDimensions(deps.db);
  if (dimensions === null || dimensions > HNSW_MAX_DIMENSIONS) return sweep;
  const needing = await orgsNeedingVectorIndex(deps.db, deps.config.RETRIEVAL_EXACT_MAX_CHUNKS);
  const started = performance.now();
  for (const [index, { orgId }] of needing.entries()) {
    if (performance.now() - started > budgetMs) {
      sweep.pending = needing.length - index;
      break;
    }
    const outcome: OrgVectorIndexBuild = await buildOrgVectorIndex(deps.db, orgId, { memoryMb: deps.config.VECTOR_INDEX_BUILD_MEMORY_MB });
    if (outcome === "built") sweep.built.push(orgId);
    if (outcome === "locked") sweep.locked.push(orgId);
  }
  return sweep;
}
