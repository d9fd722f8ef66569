/**
 * Intent of one tutor turn. Obvious cases (greetings, thanks, progress questions, in every
 * supported language: the packs of lib/languages/) are settled by heuristics
 * without a model call; the rest by one short, deterministic call (unless the sources found settle
 * it first: stages.ts). A reply carrying JSON (bare,
 * fenced or amid a local model's prose) is read by a strict schema first; then the first label
 * the text names; anything else non-empty is cross_course (search everything: the route decides
 * cost, not correctness). An empty reply is LLM_CONFIG_ERROR: a model that says nothing is
 * misconfigured (or spent its tokens thinking).
 */
import { z } from "zod";
import type { LlmClient } from "../llm/client";
import { LlmError } from "../llm/errors";
import { extractJson } from "../llm/json-reply";
import { normalise } from "./language";
import { PACKS, SHARED_ACKNOWLEDGEMENTS } from "../../lib/languages";

import { INTENTS, type Intent } from "../../queues/payloads";
import { LABELS } from "../../lib/prompt-markers";

export { INTENTS, type Intent };

/** Whole messages that are small talk: every pack's greetings, thanks and acknowledgements (lib/languages/), and "ok". */
const GREETINGS: ReadonlySet<string> = new Set([
  ...PACKS.flatMap((pack) => [...pack.greetings, ...pack.thanks, ...pack.acknowledgements]),
  ...SHARED_ACKNOWLEDGEMENTS,
]);

/** A one-word greeting opening a message ("hola, gracias"): what follows it is read on its own. */
const OPENING_GREETING = new RegExp(`^(${PACKS.flatMap((pack) => pack.greetings.filter((phrase) => !phrase.includes(" "))).join("|")}) `);

// Deadlines only in the possessive ("my deadline"): "the deadline to return an item" is a policy question.
const PROGRESS_PHRASES: readonly string[] = PACKS.flatMap((pack) => pack.progressPhrases);

export interface IntentInput {
  message: string;
  courseTitle: string | null;
  lessonTitle: string | null;
}

/** The heuristic verdict, or null when the model has to decide. */
export function heuristicIntent(message: string): Intent | null {
  const text = normalise(message);
  if (GREETINGS.has(text) || GREETINGS.has(text.replace(OPENING_GREETING, ""))) return "chitchat";
  if (PROGRESS_PHRASES.some((phrase) => ` ${text} `.includes(` ${phrase} `))) return "progress";
  return null;
}

export function classificationPrompt({ message, courseTitle, lessonTitle }: IntentInput): string {
  return [
    "You classify the intent of an employee's message to the tutor of a corporate learning platform.",
    "Choose exactly one label:",
    "- in_course: about the content of the course the employee is currently taking",
    "- cross_course: about company knowledge that may span several topics or documents",
    "- progress: about their own progress, scores, deadlines, skills or pending reviews",
    "- chitchat: greetings, thanks, small talk",
    "- off_topic: unrelated to work or learning (sports, politics, celebrities…)",
    "",
    `The employee is ${courseTitle ? "inside a course" : "not inside any course"}.`,
    `${LABELS.course}: ${courseTitle ?? "None"}`,
    `Current lesson: ${lessonTitle ?? "None"}`,
    "",
    `${LABELS.employeeMessage}: ${JSON.stringify(message)}`,
    "",
    "Reply with the label only.",
  ].join("\n");
}

const intentLabel = z.enum(INTENTS);
/** `"in_course"`, `{"intent": "in_course"}` (or `label`/`category`, with any explanation beside it). */
const jsonVerdict = z.union([
  intentLabel,
  z.looseObject({ intent: intentLabel }).transform((verdict) => verdict.intent),
  z.looseObject({ label: intentLabel }).transform((verdict) => verdict.label),
  z.looseObject({ category: intentLabel }).transform((verdict) => verdict.category),
]);

/**
 * The verdict of a reply that holds JSON, checked strictly: a `reasoning` field that mentions
 * other labels does not confuse it the way reading the text for the first label would.
 */
export function jsonIntent(reply: string): Intent | null {
  const value = extractJson(reply);
  if (value === undefined) return null;
  const parsed = jsonVerdict.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The first label the reply names ("in_course", "Label: in_course", "off-topic", "In course"), else cross_course. */
export function parseIntent(reply: string): Intent {
  const words = `_${reply.toLowerCase().replace(/[^a-z]+/g, "_")}_`;
  let found: { intent: Intent; at: number } | undefined;
  for (const intent of INTENTS) {
    const at = words.indexOf(`_${intent}_`);
    if (at >= 0 && (!found || at < found.at)) found = { intent, at };
  }
  return found?.intent ?? "cross_course";
}

export async function classifyIntent(
  llm: LlmClient,
  input: IntentInput,
  call: { orgId: string; userId: string },
): Promise<{ intent: Intent; decidedBy: "heuristic" | "model" }> {
  const heuristic = heuristicIntent(input.message);
  if (heuristic) return { intent: heuristic, decidedBy: "heuristic" };
  return { intent: await classifyByModel(llm, input, call), decidedBy: "model" };
}

/** The model's verdict: one short, deterministic call. */
export async function classifyByModel(llm: LlmClient, input: IntentInput, call: { orgId: string; userId: string }): Promise<Intent> {
  const reply = await llm.chat({ useCase: "tutor", ...call }, [{ role: "user", content: classificationPrompt(input) }], {
    // A bare label takes a few tokens; a local model that wraps it in a sentence and a fence takes up to ~40.
    maxTokens: 60,
    temperature: 0,
  });
  if (reply.content.trim() === "") {
    throw new LlmError(
      "LLM_CONFIG_ERROR",
      `The model "${reply.model}" answered the intent classification with nothing; check LLM_MODEL_TUTOR (a reasoning model may spend its 60 tokens thinking).`,
      { recoveryHint: "An operator needs to check the model configuration.", fault: "rejected" },
    );
  }
  return jsonIntent(reply.content) ?? parseIntent(reply.content);
}
