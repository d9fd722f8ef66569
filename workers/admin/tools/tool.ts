/**
 * What an admin assistant tool is: a name and description the model reads, a zod schema that is
 * both the JSON schema the model is shown and the validator its arguments must pass, and a `run`
 * that reads (at once) or proposes a write (never performed here). Every tool gets the caller's
 * org from the job, never from the model.
 */
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { z } from "zod";
import type { Db } from "../../../db/knex";
import type { Language } from "../../../lib/language";
import type { AdminToolName } from "../../../queues/events/contract";
import type { ProposedAction } from "./proposal";

export interface ToolContext {
  db: Db;
  orgId: string;
  /** The admin whose turn this is. */
  userId: string;
  language: Language;
  /** Today in the admin's calendar (UTC date), for deadlines the model computes. */
  today: string;
  /**
   * Persists a write as a pending action and returns what was stored; the tool tells the model
   * about that. A re-run of a turn that proposed on an earlier attempt gets that proposal back,
   * unchanged (a turn proposes at most once), whatever it resolved this time.
   */
  propose(action: ProposedAction): Promise<StoredProposal>;
}

export interface StoredProposal {
  actionId: string;
  status: string;
  preview: string;
  total: number;
  /** The first items' labels, as frozen. */
  labels: string[];
  expiresAt: string;
}

export type ToolResult = Record<string, unknown>;

export interface AdminTool<S extends z.ZodType = z.ZodType> {
  /** One of ADMIN_TOOL_NAMES: the names metrics may label a call with. */
  name: AdminToolName;
  description: string;
  kind: "read" | "write";
  schema: S;
  run(context: ToolContext, args: z.infer<S>): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodType>(tool: AdminTool<S>): AdminTool<S> {
  return tool;
}

/** The OpenAI `tools` array, each tool's parameters generated from its zod schema. */
export function toOpenAiTools(tools: readonly AdminTool[]): ChatCompletionTool[] {
  return tools.map((tool) => {
    const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
    return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
  });
}

/**
 * An id argument: the model copies it from an earlier tool result. Checked as a UUID here, at the
 * edge, so a malformed one ("------------------------------------") is an error result the model
 * can correct, never a value Postgres refuses (22P02) that would fail the whole turn.
 */
export const idArgument = (what: string) => z.guid({ error: `must be the id of ${what} from an earlier tool result (a UUID)` });

/** A result the model must not take as success: the reason, in words it can relay. */
export function toolError(message: string, extra: Record<string, unknown> = {}): ToolResult {
  return { error: message, ...extra };
}
