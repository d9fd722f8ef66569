/** What retrieval hands to generation: the rung, where it came from, and labelled sources. */
import type { GroundingRung, GroundingSource, RetrievalSource } from "../../../queues/events/contract";
import type { Intent } from "../intent";

export interface RetrievedSource extends GroundingSource {
  content: string;
}

export interface RetrievalOutcome {
  intent: Intent;
  rung: GroundingRung;
  source: RetrievalSource;
  sources: RetrievedSource[];
  latencyMs: number;
  /** True when a whole document had to be cut to fit the context budget. */
  truncated: boolean;
}

/** Renumbers sources 1..n in order, so `[n]` in the prompt and in citations always agree. */
export function numbered(sources: Array<Omit<RetrievedSource, "index">>): RetrievedSource[] {
  return sources.map((source, i) => ({ ...source, index: i + 1 }));
}
