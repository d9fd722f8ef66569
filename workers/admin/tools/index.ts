/**
 * The admin assistant's tool set and the one way to run a call: look the tool up, validate the
 * model's arguments with its zod schema (a bad call becomes an error result the model can fix,
 * never a crash), run it through the retries and the breaker (resilience.ts), and cap the
 * result's size.
 */
import type { ToolCall } from "../../llm/client";
import { READ_TOOLS } from "./read-tools";
import { type ResilienceSettings, type ToolBreaker, unavailableResult, withResilience } from "./resilience";
import { capResult } from "./result-cap";
import type { AdminTool, ToolContext, ToolResult } from "./tool";
import { WRITE_TOOLS } from "./write-tools";

export const ADMIN_TOOLS: readonly AdminTool[] = [...READ_TOOLS, ...WRITE_TOOLS] as readonly AdminTool[];

export interface ToolRun {
  tool: string;
  arguments: unknown;
  ok: boolean;
  /** The JSON given back to the model, already capped. */
  json: string;
  truncated: boolean;
  ms: number;
  error?: string;
  actionId?: string;
}

function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false } {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

/** How a call survives database blips; the loop passes the configured settings and the process's breaker. */
export interface ToolGuard {
  settings: ResilienceSettings;
  breaker?: ToolBreaker;
}

export async function runToolCall(context: ToolContext, call: ToolCall, guard?: ToolGuard): Promise<ToolRun> {
  const started = performance.now();
  const finish = (result: ToolResult, args: unknown): ToolRun => {
    const { json, truncated } = capResult(result);
    const error = typeof result.error === "string" ? result.error : undefined;
    const actionId = typeof result.action_id === "string" ? result.action_id : undefined;
    return {
      tool: call.name,
      arguments: args,
      ok: !error,
      json,
      truncated,
      ms: Math.round(performance.now() - started),
      ...(error ? { error } : {}),
      ...(actionId ? { actionId } : {}),
    };
  };
  const tool = ADMIN_TOOLS.find((candidate) => candidate.name === call.name);
  if (!tool) return finish({ error: `There is no tool called "${call.name}". Available: ${ADMIN_TOOLS.map((t) => t.name).join(", ")}.` }, call.arguments);
  const raw = parseArguments(call.arguments);
  if (!raw.ok) return finish({ error: "The arguments were not valid JSON; send a JSON object." }, call.arguments);
  const parsed = tool.schema.safeParse(raw.value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`).join("; ");
    return finish({ error: `Invalid arguments for ${tool.name}: ${problems}` }, raw.value);
  }
  if (!guard) return finish(await tool.run(context, parsed.data), parsed.data);
  const outcome = await withResilience(context.orgId, tool.name, () => tool.run(context, parsed.data), guard.settings, guard.breaker);
  return finish(outcome.ok ? outcome.value : unavailableResult(tool.name, outcome.unavailable), parsed.data);
}
