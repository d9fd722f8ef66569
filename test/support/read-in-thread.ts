/**
 * A hostile file read the way the worker reads it: in a limited extraction thread
 * (workers/ingestion/isolation), with the given limits, while this process's event loop is
 * watched (expectNoLongBlock). Tests that used to call extractDocument on the test's own thread
 * use this, so what they check is what production does, and the loop bound holds for it.
 */
import { parseConfig } from "../../lib/config";
import type { DocumentFormat } from "../../lib/document-formats";
import type { ExtractedDocument, ExtractionLimits } from "../../workers/ingestion/extract/types";
import { extractionLimits } from "../../workers/ingestion/isolation";
import { runInThread } from "../../workers/ingestion/isolation/thread-pool";
import { memoryLogger } from "../workers/llm/helpers";
import { expectNoLongBlock } from "./event-loop-block";
import { testEnv } from "./tunables";

const config = parseConfig(testEnv({ ...process.env, EXTRACT_TIMEOUT_MS: "30000" }));
const { log } = memoryLogger();

export function readInThread(
  bytes: Buffer,
  format: DocumentFormat,
  limits: ExtractionLimits = extractionLimits(config),
  what = `a ${format} file`,
): Promise<ExtractedDocument> {
  return expectNoLongBlock(`reading ${what}`, () => runInThread<ExtractedDocument>("extract", { bytes, format, limits }, config.ingestion, log));
}
