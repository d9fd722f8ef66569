/**
 * Turns `[n]` markers in an answer into structured citations. Only sources the model was
 * actually given can be cited: an invented `[9]` is dropped, not guessed at.
 */
import type { Citation } from "../../queues/events/contract";
import type { RetrievedSource } from "./retrieval/types";

/** Every number cited, from `[1]`, `[1, 2]`, `[1][3]` or `[2-3]`, in first-seen order. */
export function citedIndices(answer: string): number[] {
  const seen = new Set<number>();
  for (const match of answer.matchAll(/\[(\d+(?:\s*[-–,]\s*\d+)*)\]/g)) {
    for (const part of match[1]!.split(",")) {
      const range = part.split(/[-–]/).map((n) => Number(n.trim()));
      const [from, to = from] = range as [number, number?];
      for (let n = from; n <= (to ?? from) && n - from < 50; n++) seen.add(n);
    }
  }
  return [...seen];
}

export function extractCitations(answer: string, sources: RetrievedSource[]): Citation[] {
  const byIndex = new Map(sources.map((source) => [source.index, source]));
  return citedIndices(answer)
    .map((index) => byIndex.get(index))
    .filter((source): source is RetrievedSource => Boolean(source))
    .sort((a, b) => a.index - b.index)
    .map(({ index, document, section, page, sourceType, sourceId }) => ({ index, document, section, page, sourceType, sourceId }));
}
