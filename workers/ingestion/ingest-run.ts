/**
 * What every ingestion stage shares: loading its document for the run it belongs to, status
 * changes that only move forward and are announced in the uploader's room, the per-document
 * deadline (which also stops the stage's own work), and turning a final failure into FAILED
 * with a reason a person can act on.
 */
import { UnrecoverableError } from "bullmq";
import { findDocument, setDocumentStatus, type DocumentRow } from "../../db/queries/documents";
import { FAILURES_OF_OURS, IN_PROGRESS_STATUSES, STATUS_PROGRESSION, type DocumentStatus } from "../../lib/document-status";
import type { IngestPayload } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { LlmError } from "../llm/errors";
import { ExtractionError, type ExtractionErrorCode } from "./extract/types";
import { ExtractionThreadError } from "./isolation/thread-pool";

/**
 * An extraction failure on its way through BullMQ: unrecoverable (another attempt would redo the
 * same work and fail the same way) and still carrying its code for `documents.error_code`.
 */
export class FinalExtractionError extends UnrecoverableError {
  constructor(
    message: string,
    readonly code: ExtractionErrorCode,
  ) {
    super(message);
  }
}

/** Codes of FAILED documents besides the extraction ones: the deadline, the embedding service, the rest. */
export type IngestFailureCode = ExtractionErrorCode | (typeof FAILURES_OF_OURS)[number];

/** Thrown when a newer (re)index superseded this run, the document is gone, or a stage re-ran after the run moved on: stop quietly. */
export class SupersededRun extends Error {}

/** Statuses a document may move to `status` from: itself or anything earlier, never from a final one. */
export function allowedFrom(status: DocumentStatus): DocumentStatus[] {
  if (status === "FAILED") return [...IN_PROGRESS_STATUSES];
  return STATUS_PROGRESSION.slice(0, STATUS_PROGRESSION.indexOf(status) + 1).filter((s) => s !== "COMPLETED");
}

export interface StageRun {
  document: DocumentRow;
  /** Aborted when the document's time is up; long loops check it. */
  signal: AbortSignal;
}

class IngestTimeout extends UnrecoverableError {}

const timedOut = (deps: WorkerDeps): UnrecoverableError =>
  new IngestTimeout(`Indexing took longer than ${Math.round(deps.config.ingestion.INGEST_TIMEOUT_MS / 1000)} s and was stopped.`);

export async function moveTo(
  deps: WorkerDeps,
  data: IngestPayload,
  run: StageRun,
  status: DocumentStatus,
  extra: Record<string, unknown> = {},
  progress?: { done: number; total: number },
): Promise<void> {
  if (run.signal.aborted) throw timedOut(deps);
  const moved = await setDocumentStatus(deps.db, data, status, extra, allowedFrom(status));
  if (!moved) throw new SupersededRun(`document deleted, re-indexed, or already past ${status}`);
  deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status, ...(progress ? { progress } : {}) });
}

export function announceProgress(deps: WorkerDeps, data: IngestPayload, done: number, total: number): void {
  deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "EMBEDDING", progress: { done, total } });
}

/**
 * What FAILED says when the cause is ours (a reader thread that could not start or crashed, a
 * bug, a lost file): the admin must not go and "fix" a file that is fine.
 */
export const INTERNAL_FAILURE_REASON =
  "Indexing failed because of a problem on our side, not a problem with the file. Try again later: re-index the document (or upload it again).";

/** A reason for FAILED that names the cause, never a stack trace. */
export function failureReason(error: unknown): string {
  if (error instanceof ExtractionError) return error.message;
  if (error instanceof LlmError) return `The embedding service failed: ${error.message} ${error.options.recoveryHint ?? ""}`.trim();
  if (error instanceof UnrecoverableError) return error.message;
  if (error instanceof ExtractionThreadError) return `${INTERNAL_FAILURE_REASON} (The file reader could not run.)`;
  return INTERNAL_FAILURE_REASON;
}

/** The stable code stored beside the reason, for clients that act on the kind of failure. */
export function ingestFailureCode(error: unknown): IngestFailureCode {
  if (error instanceof ExtractionError || error instanceof FinalExtractionError) return error.code;
  if (error instanceof IngestTimeout) return "INGEST_TIMEOUT";
  if (error instanceof LlmError) return "EMBEDDING_FAILED";
  return "INGEST_FAILED";
}

export async function markFailed(deps: WorkerDeps, data: IngestPayload, error: unknown): Promise<void> {
  if (error instanceof SupersededRun) return;
  const reason = failureReason(error);
  const code = ingestFailureCode(error);
  const moved = await setDocumentStatus(deps.db, data, "FAILED", { error: reason, error_code: code }, allowedFrom("FAILED"));
  if (moved) deps.userEvents.emit(data.userId, "document_status", { documentId: data.documentId, status: "FAILED", error: reason, error_code: code });
}

/**
 * Runs a stage for the run the job belongs to. Ends quietly when the run was superseded,
 * fails fast on bad input, and stops a stage that runs past the document's deadline
 * (INGEST_TIMEOUT_MS from the start of processing): the job fails and the stage's signal
 * aborts, so its remaining work cannot overwrite the FAILED status afterwards.
 */
export async function runStage<T>(deps: WorkerDeps, data: IngestPayload, stage: (run: StageRun) => Promise<T>): Promise<T | { superseded: true }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    const document = await findDocument(deps.db, data.orgId, data.documentId);
    if (!document || document.ingest_generation !== data.generation) throw new SupersededRun("document deleted or re-indexed since this job was queued");
    const startedAt = document.processing_started_at ? new Date(document.processing_started_at).getTime() : Date.now();
    const remaining = startedAt + deps.config.ingestion.INGEST_TIMEOUT_MS - Date.now();
    if (remaining <= 0) throw timedOut(deps);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(timedOut(deps));
      }, remaining);
    });
    return await Promise.race([stage({ document, signal: controller.signal }), deadline]);
  } catch (error) {
    if (error instanceof SupersededRun) return { superseded: true };
    if (error instanceof ExtractionError) throw new FinalExtractionError(error.message, error.code);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
