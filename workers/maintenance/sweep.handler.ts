/**
 * `maintenance`: the periodic sweeps, each started by its own BullMQ job scheduler (registered
 * by every worker that serves this queue; see JobProducer.scheduleMaintenance). One run of a
 * sweep is one job, so Bull Board shows when each last ran, what it found and any failure.
 */
import { defineHandler } from "../registry";
import { pruneOldCatalogImports } from "./catalog-imports";
import { failLostTurns } from "./lost-turns";
import { sweepChatRetention } from "./chat-retention";
import { embedPendingQuestions } from "./question-vectors";
import { failStuckDocuments } from "./stuck-documents";
import { requeueUnqueuedDocuments } from "./unqueued-documents";
import { buildMissingVectorIndexes } from "./vector-indexes";

export const maintenanceHandler = defineHandler({
  queue: "maintenance",
  async perform({ data, deps, log }) {
    if (data.task === "lost-turns") {
      const failed = await failLostTurns(deps, deps.config.workers.TURN_DEADLINE_MS);
      log[failed > 0 ? "warn" : "debug"]({ task: data.task, count: failed }, "lost-turn sweep: turns failed with TURN_LOST");
      return { failed };
    }
    if (data.task === "question-vectors") {
      const sweep = await embedPendingQuestions(deps);
      log.debug({ task: data.task, count: sweep.embedded }, "question-vector sweep: tutor questions embedded");
      if (sweep.allowanceSpent.length > 0) {
        log.info({ task: data.task, orgIds: sweep.allowanceSpent }, "question-vector sweep: organisations whose AI allowance is spent were not embedded");
      }
      return { embedded: sweep.embedded, allowanceSpent: sweep.allowanceSpent.length };
    }
    if (data.task === "chat-retention") {
      const sweep = await sweepChatRetention(deps);
      log[sweep.sessions > 0 ? "info" : "debug"]({ task: data.task, ...sweep }, "chat-retention sweep: sessions past their organisation's retention deleted");
      return sweep;
    }
    if (data.task === "catalog-imports") {
      const pruned = await pruneOldCatalogImports(deps.db);
      log[pruned.finished + pruned.abandoned > 0 ? "info" : "debug"]({ task: data.task, ...pruned }, "catalog-import sweep: old finished imports pruned");
      return pruned;
    }
    if (data.task === "vector-indexes") {
      const sweep = await buildMissingVectorIndexes(deps);
      log[sweep.built.length > 0 || sweep.folded > 0 ? "info" : "debug"](
        { task: data.task, ...sweep },
        "vector-index sweep: tails folded, organisations' HNSW indexes built",
      );
      return sweep;
    }
    const failed = await failStuckDocuments(deps.db, deps.userEvents, deps.config.ingestion.INGEST_TIMEOUT_MS);
    const requeued = await requeueUnqueuedDocuments(deps);
    log[failed + requeued > 0 ? "warn" : "debug"](
      { task: data.task, count: failed, requeued },
      "stuck-document sweep: overdue documents marked FAILED, PENDING ones whose job was never queued queued again",
    );
    return { failed, requeued };
  },
});
