/**
 * What a tutor turn keeps at each checkpoint (workers/turns/turn-state.ts) and how it reads them
 * back: the intent once classified, the retrieval outcome once the sources are found, and the
 * finished answer between the end of the model stream and the database write — so a retry after
 * that write failed (Postgres down, the worker killed at that moment) stores the same answer
 * instead of paying the model for a second, different one. Each is parsed, not cast: a value that
 * is not what this release keeps counts as not kept, and its stage runs again.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { RETRIEVAL_SOURCES, type GroundingRung } from "../../queues/events/contract";
import { INTENTS } from "../../queues/payloads";
import { keepCheckpoint, keptCheckpoints } from "../turns/turn-state";
import type { RetrievalOutcome } from "./retrieval/types";

const rung = z.enum(["chunks", "document", "general"]) satisfies z.ZodType<GroundingRung>;

export const classification = z.object({ intent: z.enum(INTENTS), decidedBy: z.enum(["heuristic", "evidence", "model"]) });
export type Classification = z.infer<typeof classification>;

const retrievalOutcome: z.ZodType<RetrievalOutcome> = z.object({
  intent: z.enum(INTENTS),
  rung,
  source: z.enum(RETRIEVAL_SOURCES),
  sources: z.array(
    z.object({
      index: z.number().int(),
      document: z.string(),
      section: z.string().nullable(),
      page: z.number().nullable(),
      sourceType: z.enum(["lesson", "document_chunk", "document", "progress", "attachment"]),
      sourceId: z.string().nullable(),
      content: z.string(),
    }),
  ),
  latencyMs: z.number(),
  truncated: z.boolean(),
});

const keptAnswer = z.object({
  text: z.string(),
  model: z.string(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  generationLatencyMs: z.number(),
  /** The model stepped down (step-down.ts) from this rung: the answer is general knowledge. */
  steppedDownFrom: rung.optional(),
  /** The first answer cited nothing and was asked for again: whether the second one cited (generation.ts). */
  citeRetry: z.enum(["cited", "uncited"]).optional(),
});
/** A finished answer waiting to be stored. */
export type KeptAnswer = z.infer<typeof keptAnswer>;

export interface KeptStages {
  intent?: Classification;
  retrieval?: RetrievalOutcome;
  answer?: KeptAnswer;
}

/** The stages an earlier attempt of the turn finished, read at once. */
export async function keptStages(redis: Redis, turnId: string): Promise<KeptStages> {
  const kept = await keptCheckpoints(redis, turnId);
  return {
    intent: classification.safeParse(kept.intent).data,
    retrieval: retrievalOutcome.safeParse(kept.retrieval).data,
    answer: keptAnswer.safeParse(kept.answer).data,
  };
}

export const keepClassification = (redis: Redis, turnId: string, value: Classification) => keepCheckpoint(redis, turnId, "intent", value);
export const keepRetrieval = (redis: Redis, turnId: string, value: RetrievalOutcome) => keepCheckpoint(redis, turnId, "retrieval", value);
export const keepAnswer = (redis: Redis, turnId: string, value: KeptAnswer) => keepCheckpoint(redis, turnId, "answer", value);
