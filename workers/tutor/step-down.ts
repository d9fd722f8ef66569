/**
 * The model's way down the ladder. Retrieval judges relevance by words and vectors; a model can
 * still read the passages and find they do not answer. Then it starts its reply with a fixed
 * marker — plain ASCII, unlike anything a source or an answer contains — which the answer guard
 * (answer-guard.ts) takes out of the text and turns into a `grounding_update`: the turn is stored
 * and shown as general knowledge, with no citations. Only grounded rungs (chunks, document) offer it,
 * and not the learner's progress facts, which always answer a progress question.
 */
import type { GroundingRung, RetrievalSource, TurnEventPayloads } from "../../queues/events/contract";
import type { Intent } from "./intent";

export const STEP_DOWN_MARKER = "[[NOT_IN_SOURCES]]";

/** The sentence the chunks and document prompts end with (prompts.ts). */
export const STEP_DOWN_INSTRUCTION = `If the sources do not answer the question at all, begin your reply with the exact marker ${STEP_DOWN_MARKER}, then say in one short sentence that this is general knowledge, not company material, and answer from general knowledge without citing any source.`;

/** Whether a turn may step down: only answers grounded in company material can (not the learner's own progress facts). */
export function canStepDown({ rung, intent }: { rung: GroundingRung; intent: Intent }): boolean {
  return (rung === "chunks" || rung === "document") && intent !== "progress";
}

/** The `grounding_update` a stepped-down turn announces, from the rung it was first given. */
export function stepDownUpdate(from: GroundingRung): TurnEventPayloads["grounding_update"] {
  return { rung: "general", source: "none", sources: [], from, reason: "sources_do_not_answer" };
}

/** The retrieval a stepped-down turn is stored with: general knowledge, no sources to cite. */
export function steppedDown<R extends { rung: GroundingRung; source: RetrievalSource; sources: unknown[] }>(retrieval: R): R {
  return { ...retrieval, rung: "general", source: "none", sources: [] };
}
