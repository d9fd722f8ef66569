/**
 * Run by thread-failures.test.ts the way the launcher runs the worker
 * (`node --import tsx --import launcher/embedded/exit-with-parent.ts …`): reads one text file in an
 * extraction thread and prints what it read, or the error.
 */
import { parseConfig } from "../../../../../lib/config";
import { componentLogger } from "../../../../../lib/logger";
import { closeThreadPool, extractInThread } from "../../../../../workers/ingestion/isolation";
import { testEnv } from "../../../../support/tunables";

const config = parseConfig(testEnv({ ...process.env, EXTRACT_TIMEOUT_MS: "20000" }));
try {
  const extracted = await extractInThread(Buffer.from("Lockers are in room saffron."), "txt", config, componentLogger("worker"));
  process.stdout.write(`READ ${extracted.fullText.trim()}\n`);
} catch (error) {
  process.stdout.write(`FAILED ${(error as Error).message}\n`);
} finally {
  await closeThreadPool();
}
