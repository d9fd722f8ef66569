/** Shared set-up for the LLM client tests: a client against a scripted server, with usage and log capture. */
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { parseConfig, type Config } from "../../../lib/config";
import { LlmClient, type LlmClientOptions } from "../../../workers/llm/client";
import type { UsageRecord } from "../../../workers/llm/usage-recorder";
import { ModelCooldowns } from "../../../workers/llm/cooldowns";
import type { ScriptedLlm } from "../../harness/scripted-llm";
import { testEnv } from "../../support/tunables";

export const TEST_KEY = "sk-unit-secret-key-9876543210abcdef";

/** Short retry timings for tests that are not about timing. */
export const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

/** A pino logger writing every line (at trace level and above) into memory. */
export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: "trace" }, stream), lines };
}

export interface TestClient {
  client: LlmClient;
  config: Config;
  rows: UsageRecord[];
  lines: string[];
  cooldowns: ModelCooldowns;
}

export function makeClient(llm: Pick<ScriptedLlm, "url">, env: Record<string, string> = {}, options: Partial<LlmClientOptions> = {}): TestClient {
  const config = parseConfig(testEnv({ LLM_BASE_URL: llm.url, LLM_API_KEY: TEST_KEY, LLM_MODEL: "scripted-model", LOG_LEVEL: "silent", ...env }));
  const rows: UsageRecord[] = [];
  const { log, lines } = memoryLogger();
  const cooldowns = options.cooldowns ?? new ModelCooldowns();
  const client = new LlmClient(config, { retry: FAST_RETRY, cooldowns, usage: (record) => void rows.push(record), log, ...options });
  return { client, config, rows, lines, cooldowns };
}

/** Waits for pino's stream to flush what was written synchronously. */
export const flushed = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, any>;
  }
  throw new Error("expected a rejection");
}
