/**
 * What every ingestion stage shares: loading its document for the run it belongs to, status
 * changes that are persisted and announced in the uploader's room, the per-document timeout,
 * and turning a final failure into FAILED with a reason a person can act on.
 */
import { UnrecoverableError } from "bullmq";
import { findDocument, setDocumentStatus, type DocumentRow } from "../../db/queries/documents";
import type { DocumentStatus } from "../../queues/events/user-events";
import type { IngestPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { LlmError } from "../llm/errors";
import { ExtractionError } from "./extract/types";

/** Thrown when a newer (re)index superseded this run or the document is gone: stop quietly. */
export class SupersededRun extends Error {}

export async function loadRun(deps: WorkerDeps, data: IngestPayload): Promise<DocumentRow> {
  const document = await findDocument(deps.db, data.orgId, data.documentId);
  if (!document || document.ingest_generation !== data.generation) throw new SupersededRun("document deleted or re-indexed since this job was queued");
  const startedAt = document.processing_started_at?.getTime();
  if (startedAt && Date.now() - startedAt > deps.config.INGEST_TIMEOUT_MS) {
    throw new UnrecoverableError(`Indexing took longer than ${Math.round(deps.config.INGEST_TIMEOUT_MS / 1000)} s and was stopped.`);
  }
  return document;
}

export async function moveTo(
  deps: WorkerDeps,
  data: IngestPayload,
  status: DocumentStatus,
  extra: Record<string, unknown> = {},
  progress?: { done: number; total: number },
): Promise<void> {
  const moved = await setDocumentStatus(deps.db, data, status, extra);
  if (!moved) throw new SupersededRun("document deleted or re-indexed");
  deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status, ...(progress ? { progress } : {}) });
}

export function announceProgress(deps: WorkerDeps, data: IngestPayload, done: number, total: number): void {
  deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "EMBEDDING", progress: { done, total } });
}

/** A reason for FAILED that names the cause, never a stack trace. */
export function failureReason(error: unknown): string {
  if (error instanceof ExtractionError) return error.message;
  if (error instanceof LlmError) return `The embedding service failed: ${error.message} ${error.options.recoveryHint ?? ""}`.trim();
  if (error instanceof UnrecoverableError) return error.message;
  return "Indexing failed after several attempts; re-index the document to try again.";
}

export async function markFailed(deps: WorkerDeps, data: IngestPayload, error: unknown): Promise<void> {
  if (error instanceof SupersededRun) return;
  const reason = failureReason(error);
  const moved = await setDocumentStatus(deps.db, data, "FAILED", { error: reason });
  if (moved) deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "FAILED", error: reason });
}

/**
 * Runs a stage, ending it quietly when the run was superseded, failing fast on bad input, and
 * giving up on a stage that hangs (a pathological file) once the document's time is up.
 */
export async function runStage<T>(deps: WorkerDeps, stage: () => Promise<T>): Promise<T | { superseded: true }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnrecoverableError(`Indexing took longer than ${Math.round(deps.config.INGEST_TIMEOUT_MS / 1000)} s and was stopped.`)), deps.config.INGEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([stage(), deadline]);
  } catch (error) {
    if (error instanceof SupersededRun) return { superseded: true };
    if (error instanceof ExtractionError) throw new UnrecoverableError(error.message);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
