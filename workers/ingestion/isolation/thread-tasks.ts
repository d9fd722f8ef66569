/**
 * What runs inside an extraction thread (see thread-pool.ts). Each task first tells the pool it
 * has started, so the time limit counts the work and not the wait for a free thread, then
 * answers with a plain outcome: errors do not keep their class across threads, so a document
 * problem travels as its code and message.
 */
import { setPriority } from "node:os";
import type { MessagePort } from "node:worker_threads";
import { type ImportFormat, splitImportBody } from "../../../lib/catalog-import-file";
import { type PackedSplit, packSplit } from "../../../lib/catalog-import-packed";
import type { DocumentFormat } from "../../../lib/document-formats";
import { chunkDocument, type Chunk, type ChunkingOptions } from "../chunking";
import { extractDocument } from "../extract";
import { DEFAULT_OCR_SETTINGS, type ExtractedDocument, ExtractionError, type ExtractionErrorCode, type ExtractionLimits } from "../extract/types";
import { warmUp } from "./warm-up";

/**
 * What a thread does is background work (a document read, an import split), and the worker's event
 * loop, which streams every organisation's answers, shares the cores with it: Linux gives each
 * thread its own nice value, so this thread yields the CPU to the loop whenever both want it.
 * Measured with another organisation's hostile imports on 2 cores: see bench/results-hostile-import.md.
 */
export const THREAD_NICE = 10;
try {
  setPriority(THREAD_NICE);
} catch {
  // A platform without per-thread priorities: the thread runs at the process's.
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: ExtractionErrorCode; message: string };

export interface ExtractTask {
  bytes: Uint8Array;
  format: DocumentFormat;
  limits: ExtractionLimits;
  started: MessagePort;
}

export interface SplitImportTask {
  /** The file's parts as stored (joined here, off the worker's event loop). */
  parts: Uint8Array[];
  format: ImportFormat;
  started: MessagePort;
}

export interface ChunkTask {
  document: ExtractedDocument;
  options: ChunkingOptions;
  started: MessagePort;
}

/** What a task tells the pool: it has started (the clock starts), or it needs OCR (the clock becomes the OCR budget, `ms` from now). */
export type ThreadSignal = { kind: "started" } | { kind: "ocr"; ms: number };

/** Past the OCR budget the OCR code stops by itself; the thread's own clock is only the backstop behind it. */
const OCR_BACKSTOP_MS = 5_000;

async function settle<T>(started: MessagePort, work: () => T | Promise<T>): Promise<Outcome<T>> {
  started.postMessage({ kind: "started" } satisfies ThreadSignal);
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof ExtractionError) return { ok: false, code: error.code, message: error.message };
    throw error;
  } finally {
    started.close();
  }
}

export function extract({ bytes, format, limits, started }: ExtractTask): Promise<Outcome<ExtractedDocument>> {
  const withOcr: ExtractionLimits = {
    ...limits,
    onOcrStart: () =>
      started.postMessage({ kind: "ocr", ms: (limits.ocr?.timeoutMs ?? DEFAULT_OCR_SETTINGS.timeoutMs) + OCR_BACKSTOP_MS } satisfies ThreadSignal),
  };
  // Structured cloning turns the Buffer into a plain Uint8Array; wrap it without copying.
  return settle(started, () => extractDocument(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), format, withOcr));
}

export function chunk({ document, options, started }: ChunkTask): Promise<Outcome<Chunk[]>> {
  return settle(started, () => chunkDocument(document, options));
}

/** Splits a bulk catalog import's file (lib/catalog-import-file.ts), which can take seconds for a hostile one. */
export function splitImport({ parts, format, started }: SplitImportTask): Promise<Outcome<PackedSplit>> {
  return settle(started, () => packSplit(splitImportBody(Buffer.concat(parts), format)));
}

/** Run once per thread after the start-up probe (warmThreadPool), so the first uploads find the readers loaded and optimised. */
export async function warm({ options }: { options: ChunkingOptions }): Promise<string> {
  await warmUp(options);
  return "warm";
}

/** The start-up probe (probeThreadPool): answering proves the thread started and loaded the readers. */
export function ping(): string {
  return "pong";
}
