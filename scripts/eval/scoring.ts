/**
 * How one tutor answer is judged against its question: which grounding source holds the answer
 * passage (recall@5, reciprocal rank), whether every `[n]` points at a given source that supports
 * its sentence, refusals, and the answer's language. Pure functions, so they are unit-tested
 * without a stack (test/unit/scripts/eval/scoring.test.ts).
 */
import { detectLanguage } from "../../lib/language-detection";
import { words } from "../../offline-model/text";
import { citedIndices } from "../../workers/tutor/citations";
import type { EvalQuestion } from "./questions";

/** A grounding source as the socket announced it, with the text it stands for (read back by id). */
export interface JudgedSource {
  index: number;
  documentId: string | null;
  content: string;
}

/** Case- and accent-folded words joined by single spaces: punctuation and markdown never decide a match. */
export function normalise(text: string): string {
  return ` ${words(text).join(" ")} `;
}

export function containsFact(content: string, fact: string): boolean {
  return normalise(content).includes(normalise(fact));
}

/** Sources ranked 1..5 (grounding order) that hold each expected passage; 0 when it was not among them. */
export function passageRanks(question: Pick<EvalQuestion, "passages">, sources: JudgedSource[], documentIds: Map<string, string>): number[] {
  const top = [...sources].sort((a, b) => a.index - b.index).slice(0, 5);
  return question.passages.map((passage) => {
    const documentId = documentIds.get(passage.file);
    const rank = top.findIndex((source) => source.documentId === documentId && containsFact(source.content, passage.fact));
    return rank + 1;
  });
}

/** Share of the expected passages found in the top 5 (1 for a question that expects none and got none). */
export function recallAt5(ranks: number[]): number {
  if (ranks.length === 0) return 1;
  return ranks.filter((rank) => rank > 0).length / ranks.length;
}

/**
 * Misleading grounding: the turn ended on a grounded rung (chunks or document) while none of the
 * question's expected passages was among its sources. A question with no answer in the corpus
 * (no passages) is misleading on any grounded rung; the general rung never is.
 */
export function isMisleading(rung: string, ranks: number[]): boolean {
  if (rung !== "chunks" && rung !== "document") return false;
  return !ranks.some((rank) => rank > 0);
}

/** 1 / rank of the first expected passage found; 0 when none was. */
export function reciprocalRank(ranks: number[]): number {
  const found = ranks.filter((rank) => rank > 0);
  return found.length === 0 ? 0 : 1 / Math.min(...found);
}

/** The offline model's lead-in is the answer's frame, not a claim a source must support. */
const LEAD_IN = /^(according to the company material|según el material de la empresa)\s*:\s*/i;

/** How many of a cited sentence's words must occur in the sources it cites. */
export const SUPPORT_SHARE = 0.6;

export interface CitationCheck {
  markers: number;
  /** Markers naming a source the turn was not given. */
  dangling: number;
  /** Cited sentences whose words the cited sources do not contain. */
  unsupported: string[];
}

/**
 * Every `[n]` must name a source of the turn, and the sentence it ends must be supported by what
 * it cites: at least SUPPORT_SHARE of the sentence's words occur in the cited sources' text.
 */
export function checkCitations(answer: string, sources: JudgedSource[]): CitationCheck {
  const byIndex = new Map(sources.map((source) => [source.index, source]));
  const markers = citedIndices(answer);
  const dangling = markers.filter((index) => !byIndex.has(index)).length;
  const unsupported: string[] = [];
  // A cited claim runs from the end of the previous cited claim to its markers.
  const claims = answer.replace(LEAD_IN, "").split(/(?<=\])[.!?…]?\s+/);
  for (const claim of claims) {
    const cited = citedIndices(claim)
      .map((index) => byIndex.get(index))
      .filter((source): source is JudgedSource => source !== undefined);
    if (cited.length === 0) continue;
    const claimWords = words(claim.replace(/\[[\d,\s–-]+\]/g, ""));
    if (claimWords.length === 0) continue;
    const available = new Set(cited.flatMap((source) => words(source.content)));
    const supported = claimWords.filter((word) => available.has(word)).length / claimWords.length;
    if (supported < SUPPORT_SHARE) unsupported.push(claim.trim());
  }
  return { markers: markers.length, dangling, unsupported };
}

const REFUSAL =
  /\b(I (cannot|can't|can not|am unable to|'m unable to|won't) (help|answer|assist)|I('m| am) (sorry|afraid)|no (puedo|podemos) (ayudar|responder)|lo siento)\b/i;

/** An answer that declines instead of helping; the tutor promises never to. */
export function isRefusal(answer: string): boolean {
  return answer.trim() === "" || REFUSAL.test(answer);
}

const SAID_ALOUD = /general knowledge|not from company material|not company material|conocimiento general|no proviene del material/i;

/** A general-rung answer that says it is not from the company's material. */
export function saysGeneralKnowledge(answer: string): boolean {
  return SAID_ALOUD.test(answer);
}

/** The answer without its `[n]` markers, so a marker inside a quoted fact does not hide it. */
export function withoutMarkers(answer: string): string {
  return answer.replace(/\s*\[[\d,\s–-]+\]/g, "");
}

export function answerLanguage(answer: string): "en" | "es" {
  // The eval's corpus and questions are in English and Spanish only: anything else counts as English, as before.
  return detectLanguage(withoutMarkers(answer)) === "es" ? "es" : "en";
}
