/**
 * Structured output that survives local models: ask for JSON, extract it from whatever came
 * back (plain, fenced, embedded in prose, with trailing commas), validate with zod, and give
 * the model one chance to repair a validation failure before failing clearly.
 */
import type { z } from "zod";
import type { CallContext, ChatMessage, LlmClient } from "./client";

/** The first JSON value in `text`, tolerating fences, prose around it and trailing commas. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = [text.trim(), fenced?.[1]?.trim(), firstBalanced(text)].filter((c): c is string => Boolean(c));
  for (const candidate of candidates) {
    for (const attempt of [candidate, candidate.replace(/,\s*([}\]])/g, "$1")]) {
      try {
        return JSON.parse(attempt);
      } catch {
        // try the next shape
      }
    }
  }
  throw new Error("no JSON object or array found in the model's reply");
}

function firstBalanced(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const open = text[start]!;
  const close = open === "{" ? "}" : "]";
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === open) depth++;
    else if (char === close && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

export class StructuredOutputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StructuredOutputError";
  }
}

export async function chatJson<S extends z.ZodType>(
  llm: LlmClient,
  context: CallContext,
  messages: ChatMessage[],
  schema: S,
  options: { maxTokens?: number; temperature?: number } = {},
): Promise<z.infer<S>> {
  let conversation = messages;
  let problem = "";
  for (let round = 0; round < 2; round++) {
    const reply = await llm.chat(context, conversation, { ...options, json: true });
    try {
      const parsed = schema.safeParse(extractJson(reply.content));
      if (parsed.success) return parsed.data;
      problem = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
    } catch (error) {
      problem = (error as Error).message;
    }
    conversation = [
      ...messages,
      { role: "assistant", content: reply.content },
      { role: "user", content: `That reply was not valid: ${problem}. Respond with JSON only, fixing exactly those problems.` },
    ];
  }
  throw new StructuredOutputError(`The model did not return valid JSON after one repair round: ${problem}`);
}
