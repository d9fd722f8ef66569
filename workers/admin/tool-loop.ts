/**
 * The tool-calling rounds of one admin turn. Each round streams the model's text as `token`
 * events and collects its tool calls; each call is announced (`tool_call`), run inside the
 * caller's org, and reported (`tool_result`) before its result goes back to the model. After
 * ADMIN_MAX_TOOL_ROUNDS the model must answer with what it has (tool_choice none). A cancelled
 * turn stops where it is: the stream is aborted, and no further round or tool call starts.
 */
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { WorkerDeps } from "../deps";
import type { CancelWatch } from "../turns/turn-state";
import type { ChatMessage } from "../llm/client";
import { StreamCancelled } from "../llm/stream-watch";
import type { TurnEmitter } from "../turns/turn-emitter";
import { ADMIN_TOOLS, runToolCall, type ToolRun } from "./tools";
import { toOpenAiTools, type ToolContext } from "./tools/tool";

export interface ToolLoopResult {
  text: string;
  runs: Array<ToolRun & { callId: string; round: number }>;
  rounds: number;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** The owner cancelled the turn: `text` is what had streamed by then. */
  cancelled: boolean;
}

export interface ToolLoopInput {
  deps: WorkerDeps;
  events: TurnEmitter;
  tools: ToolContext;
  messages: ChatMessage[];
  /** Text already streamed in this turn (e.g. "previous proposal cancelled"); the answer follows it. */
  prefix: string;
  /** Why a write must be refused in this turn (one proposal at a time), or null. */
  writeBlocked: () => string | null;
  /** The turn's cancel: aborts the stream and stops the loop between rounds and tool calls. */
  cancel?: CancelWatch;
}

const OPENAI_TOOLS = toOpenAiTools(ADMIN_TOOLS);

function parsedArguments(raw: string): unknown {
  try {
    return JSON.parse(raw || "{}");
  } catch {
    return raw;
  }
}

export async function runToolLoop({ deps, events, tools, messages, prefix, writeBlocked, cancel }: ToolLoopInput): Promise<ToolLoopResult> {
  const maxRounds = deps.config.ADMIN_MAX_TOOL_ROUNDS;
  const runs: ToolLoopResult["runs"] = [];
  let text = prefix;
  let promptTokens = 0;
  let completionTokens = 0;
  let model = "";
  let rounds = 0;
  let cancelled = false;
  for (let round = 1; round <= maxRounds + 1; round++) {
    if (await cancel?.check()) {
      cancelled = true;
      break;
    }
    rounds = round;
    const lastChance = round > maxRounds;
    let separator = text.length > 0 && !text.endsWith("\n") ? "\n\n" : "";
    let result;
    try {
      result = await deps.llm.stream(
        { useCase: "admin", orgId: tools.orgId, userId: tools.userId },
        messages,
        {
          temperature: 0.2,
          maxTokens: 1_500,
          tools: OPENAI_TOOLS,
          ...(lastChance ? { toolChoice: "none" as const } : {}),
          ...(cancel ? { signal: cancel.signal } : {}),
        },
        async (piece) => {
          const content = separator + piece;
          separator = "";
          text += content;
          await events.emit("token", { content });
        },
      );
    } catch (error) {
      if (!(error instanceof StreamCancelled)) throw error;
      cancelled = true;
      break;
    }
    model = result.model;
    promptTokens += result.promptTokens;
    completionTokens += result.completionTokens;
    if (lastChance || result.toolCalls.length === 0) break;

    messages.push({
      role: "assistant",
      content: result.content || null,
      tool_calls: result.toolCalls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } })),
    } satisfies ChatCompletionMessageParam);
    for (const call of result.toolCalls) {
      // A cancel between tool calls: the rest are not run (a write would leave a proposal behind).
      if (cancel?.cancelled) break;
      await events.emit("tool_call", { callId: call.id, tool: call.name, arguments: parsedArguments(call.arguments), round });
      const kind = ADMIN_TOOLS.find((tool) => tool.name === call.name)?.kind;
      const blocked = kind === "write" ? writeBlocked() : null;
      const run: ToolRun = blocked
        ? {
            tool: call.name,
            arguments: parsedArguments(call.arguments),
            ok: false,
            json: JSON.stringify({ error: blocked }),
            truncated: false,
            ms: 0,
            error: blocked,
          }
        : await runToolCall(tools, call);
      runs.push({ ...run, callId: call.id, round });
      await events.emit("tool_result", {
        callId: call.id,
        tool: call.name,
        ok: run.ok,
        resultBytes: Buffer.byteLength(run.json),
        ms: run.ms,
        ...(run.error ? { error: run.error } : {}),
        ...(run.truncated ? { truncated: true } : {}),
        ...(run.actionId ? { actionId: run.actionId } : {}),
      });
      messages.push({ role: "tool", tool_call_id: call.id, content: run.json });
    }
  }
  return { text, runs, rounds, model, promptTokens, completionTokens, cancelled };
}
