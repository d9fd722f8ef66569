/**
 * The `vector-indexes` sweep. First it folds the organisations' vector tails (chunks written
 * `vector_pending`, outside the graph, so ingestion does not pay pgvector's synchronous graph
 * insert) into their HNSW indexes, a batch per transaction, largest tail first, for up to
 * FOLD_BUDGET_MS. Then every organisation past RETRIEVAL_EXACT_MAX_CHUNKS gets its own HNSW index,
 * built concurrently (db/queries/org-vector-indexes.ts), largest first. Searches of an
 * organisation stay exact until its index is valid, and see its pending rows through an exact scan
 * until folded, so a slow or failed build or fold costs speed, never an answer. A run keeps
 * building for up to a minute and then yields the queue (the maintenance queue runs one job at a
 * time per worker, and the lost-turn sweep waits behind it); the rest is done by the next runs.
 */
import { buildOrgVectorIndex, foldVectorTail, orgsNeedingVectorIndex, orgsWithVectorTail, type OrgVectorIndexBuild } from "../../db/queries/org-vector-indexes";
import { databaseVectorDimensions } from "../../db/queries/vector-columns";
import type { WorkerDeps } from "../deps";

/** pgvector's HNSW indexes vectors of at most this many dimensions; wider ones stay exact. */
const HNSW_MAX_DIMENSIONS = 2000;
/** After this long a run starts no further build. */
const RUN_BUDGET_MS = 60_000;
/** After this long a run folds no further batch: builds get the rest of the run. */
const FOLD_BUDGET_MS = 20_000;
/** Rows folded per transaction: ≈ 1.5 ms each into a graph at 1M chunks, so a batch holds its row locks for about a second. */
export const FOLD_BATCH = 500;

export interface VectorIndexSweep {
  built: string[];
  /** Organisations another worker was building (its advisory lock held). */
  locked: string[];
  /** Organisations still waiting for a later run. */
  pending: number;
  /** Rows folded from the tails into their organisations' graphs. */
  folded: number;
}

export interface SweepBudgets {
  runMs: number;
  foldMs: number;
}

/** Folds tails until they are empty or `budgetMs` has passed; returns the rows folded. */
export async function foldVectorTails(deps: Pick<WorkerDeps, "db">, budgetMs = FOLD_BUDGET_MS): Promise<number> {
  const started = performance.now();
  let folded = 0;
  for (const { orgId } of await orgsWithVectorTail(deps.db)) {
    for (;;) {
      if (performance.now() - started > budgetMs) return folded;
      const rows = await foldVectorTail(deps.db, orgId, FOLD_BATCH);
      folded += rows;
      if (rows < FOLD_BATCH) break;
    }
  }
  return folded;
}

export async function buildMissingVectorIndexes(
  deps: Pick<WorkerDeps, "db" | "config">,
  budgets: SweepBudgets = { runMs: RUN_BUDGET_MS, foldMs: FOLD_BUDGET_MS },
): Promise<VectorIndexSweep> {
  const sweep: VectorIndexSweep = { built: [], locked: [], pending: 0, folded: 0 };
  const dimensions = await databaseVectorDimensions(deps.db);
  if (dimensions === null || dimensions > HNSW_MAX_DIMENSIONS) return sweep;
  const started = performance.now();
  sweep.folded = await foldVectorTails(deps, budgets.foldMs);
  const needing = await orgsNeedingVectorIndex(deps.db, deps.config.retrieval.RETRIEVAL_EXACT_MAX_CHUNKS);
  for (const [index, { orgId }] of needing.entries()) {
    if (performance.now() - started > budgets.runMs) {
      sweep.pending = needing.length - index;
      break;
    }
    const outcome: OrgVectorIndexBuild = await buildOrgVectorIndex(deps.db, orgId, { memoryMb: deps.config.retrieval.VECTOR_INDEX_BUILD_MEMORY_MB });
    if (outcome === "built") sweep.built.push(orgId);
    if (outcome === "locked") sweep.locked.push(orgId);
  }
  return sweep;
}
