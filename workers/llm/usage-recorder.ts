/**
 * Usage accounting: every model call — answered, streamed, or a stream its caller gave up — is
 * reported to the usage sink with its tokens, duration and a call key, so a re-run of the same
 * job is not charged twice (call-keys.ts). Recording never fails the call it describes.
 */
import type { Logger } from "pino";
import type { UsageRow } from "../../db/queries/llm-usage";
import { callKeyFor } from "./call-keys";
import type { CallContext, ChatMessage, ChatResult } from "./client";

/** A model call as the client reports it; the sink prices it (workers/usage-log.ts). */
export type UsageRecord = Omit<UsageRow, "costUsd">;

export type UsageSink = (record: UsageRecord) => Promise<void> | void;

export class UsageRecorder {
  constructor(
    private readonly sink: UsageSink | undefined,
    private readonly log: Logger | undefined,
  ) {}

  async record(
    context: CallContext,
    result: Pick<ChatResult, "model" | "promptTokens" | "completionTokens">,
    durationMs: number,
    streamed: boolean,
    /** What was sent: with the job, it names the call so a re-run is not charged twice (call-keys.ts). */
    request: unknown,
  ): Promise<void> {
    if (!this.sink) return;
    try {
      await this.sink({
        orgId: context.orgId ?? null,
        userId: context.userId ?? null,
        useCase: context.useCase,
        model: result.model,
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        durationMs: Math.round(durationMs),
        streamed,
        callKey: callKeyFor(result.model, request),
      });
    } catch (error) {
      // Usage is observability: losing a row must never fail the user's turn.
      this.log?.warn({ err: error }, "could not record LLM usage");
    }
  }
}

/** A message as the token estimate counts it, for a provider that reports no usage. */
export function asCountable(message: ChatMessage): { role: string; content: string } {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");
  return { role: message.role, content };
}
