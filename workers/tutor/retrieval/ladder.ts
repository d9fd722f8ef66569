/**
 * The retrieval ladder. Intent picks the path (DB facts, PageIndex with scoped fallback,
 * hybrid search, or nothing); only passages that answer the question count (relevance.ts). When
 * the chunk paths come back empty the next rung is the whole text of the current course's source
 * document or of an enrolled course's document that covers the question; below that, general
 * knowledge. The server decides the rung here; the model can only step down from it to general
 * knowledge (step-down.ts), never up, and no rung refuses.
 */
import { vectorSearch } from "../../../db/queries/knowledge-search";
import { courseDocumentCandidates, documentTextPrefix } from "../../../db/queries/learner";
import type { RetrievalSource } from "../../../queues/events/contract";
import type { WorkerDeps } from "../../deps";
import { countTokens, tokensAtMost, truncateToTokens } from "../../llm/tokens";
import type { Intent } from "../intent";
import type { TurnContext } from "../turn-context";
import { attachmentSources } from "./attachments";
import { budgetsFor, tutorContextWindow } from "./budgets";
import { passagesOf } from "./document-passages";
import { hybridSearch, toSource } from "./hybrid-search";
import { pageIndexSearch, type ModuleChoice } from "./page-index";
import { progressFacts } from "./progress";
import { relevanceFor } from "./relevance";
import { numbered, type RetrievalOutcome, type RetrievedSource } from "./types";

/** Below this many tokens PageIndex context is too thin to answer from. */
export const THIN_CONTEXT_TOKENS = 200;

export const TRUNCATION_MARKER = {
  en: "\n\n[… the rest of this document was cut to fit the context window …]",
  es: "\n\n[… el resto de este documento se ha recortado para caber en el contexto …]",
};

type Source = Omit<RetrievedSource, "index">;

/** `modules`: the course's modules already chosen for the question (stages.ts chooses them while the model classifies). */
export async function runRetrievalLadder(deps: WorkerDeps, turn: TurnContext, intent: Intent, modules?: ModuleChoice): Promise<RetrievalOutcome> {
  const started = performance.now();
  const budget = budgetsFor(tutorContextWindow(deps.config.llm.LLM_CONTEXT_WINDOW, deps.llm.modelChain("generation"))).retrievedContext;
  const finish = (partial: Omit<RetrievalOutcome, "latencyMs" | "intent">): RetrievalOutcome => ({
    ...partial,
    intent,
    latencyMs: Math.round(performance.now() - started),
  });

  if (intent === "progress") {
    const sources = await progressFacts(deps.db, turn);
    return finish({ rung: "chunks", source: "db", sources: numbered(sources), truncated: false });
  }

  // Files attached to this conversation come first; a question sent with one is about it, whatever its intent.
  const attached = await attachmentSources(deps, turn);
  if (intent === "chitchat" || intent === "off_topic") {
    if (!attached.withQuestion) return finish({ rung: "general", source: "none", sources: [], truncated: false });
    const { sources, truncated } = fitToBudget(attached.sources, budget, turn.language);
    return finish({ rung: "chunks", source: "semantic", sources: numbered(sources), truncated });
  }

  let source: RetrievalSource;
  let found: Source[];
  if (intent === "in_course" && turn.courseId) {
    found = await pageIndexSearch(deps, { ...turn, courseId: turn.courseId, courseTitle: turn.courseTitle ?? "", question: turn.question }, modules);
    source = "pageindex";
    const documentId = turn.sourceDocumentId;
    if (tokensOf(found) < THIN_CONTEXT_TOKENS && documentId) {
      const [embedding] = await deps.llm.embed([turn.question], "query", turn);
      const scoped = await deps.reads.read((db) =>
        vectorSearch(db, {
          reader: turn,
          embedding: embedding!,
          limit: 5,
          minSimilarity: deps.config.retrieval.RETRIEVAL_SIMILARITY_FLOOR,
          documentId,
        }),
      );
      if (scoped.length > 0) {
        found = [...found, ...scoped.map(toSource)];
        source = "scoped_fallback";
      }
    }
  } else {
    found = await hybridSearch(deps, { ...turn, question: turn.question });
    source = "semantic";
  }

  found = [...attached.sources, ...found];
  if (found.length > 0) {
    const { sources, truncated } = fitToBudget(found, budget, turn.language);
    return finish({ rung: "chunks", source, sources: numbered(sources), truncated });
  }

  const document = await wholeDocument(deps, turn, budget);
  if (document) return finish({ rung: "document", source, sources: numbered([document.source]), truncated: document.truncated });
  return finish({ rung: "general", source: "none", sources: [], truncated: false });
}

/**
 * Characters read per token of budget before tokenising: generous (cl100k averages about four
 * per token in English and Spanish), so a normal text still fills the budget while tiktoken
 * never sees more than a bounded prefix of a multi-MB document.
 */
export const CHARS_PER_TOKEN_CAP = 8;

/**
 * The document rung: the current course's source document, else the enrolled course's document
 * one of whose passages covers the question as a chunk must (the same judge, relevance.ts, over
 * passages of the text the model would be given: document-passages.ts). A document that merely
 * shares a word with the question, or holds its terms in different sections, is not forced on
 * it — that question belongs on the general rung. Only documents the user may read are
 * considered; their stored tsvectors rank them first (a passage cannot cover more than its whole
 * document does), and only a bounded prefix of a few of them is read and tokenised.
 */
async function wholeDocument(deps: WorkerDeps, turn: TurnContext, budget: number): Promise<{ source: Source; truncated: boolean } | null> {
  const relevance = await relevanceFor(deps, turn.orgId, turn.question, turn.language);
  const candidates = await courseDocumentCandidates(deps.db, turn, { currentCourseId: turn.courseId, terms: relevance.terms.map((term) => term.query) });
  const maxChars = budget * CHARS_PER_TOKEN_CAP;
  const floor = deps.config.retrieval.RETRIEVAL_GROUNDING_COVERAGE;
  let chosen: { candidate: (typeof candidates)[number]; prefix: { text: string; cut: boolean } } | null = null;
  const current = candidates.find((candidate) => candidate.is_current);
  if (current) {
    const prefix = await documentTextPrefix(deps.db, turn.orgId, current.document_id, maxChars);
    if (prefix) chosen = { candidate: current, prefix };
  } else {
    const ranked = candidates
      .map((candidate) => ({ candidate, bound: relevance.coverageOf(candidate.matched) }))
      .filter(({ bound }) => bound >= floor)
      .sort((a, b) => b.bound - a.bound)
      .slice(0, DOCUMENTS_READ);
    for (const { candidate } of ranked) {
      const prefix = await documentTextPrefix(deps.db, turn.orgId, candidate.document_id, maxChars);
      if (!prefix) continue;
      const best = Math.max(0, ...passagesOf(prefix.text, candidate.title).map((passage) => relevance.coverage(passage)));
      if (best >= floor) {
        chosen = { candidate, prefix };
        break;
      }
    }
  }
  if (!chosen) return null;
  const { candidate, prefix } = chosen;
  const fitted = truncateToTokens(prefix.text, budget);
  const truncated = fitted.truncated || prefix.cut;
  return {
    truncated,
    source: {
      document: candidate.title,
      section: null,
      page: null,
      sourceType: "document",
      sourceId: candidate.document_id,
      content: truncated ? fitted.text + TRUNCATION_MARKER[turn.language === "es" ? "es" : "en"] : fitted.text,
    },
  };
}

/** Documents whose text the document rung reads at most, best-ranked first: each read is a bounded prefix. */
const DOCUMENTS_READ = 3;

function tokensOf(sources: Source[]): number {
  return sources.reduce((sum, s) => sum + countTokens(s.content), 0);
}

/** Keeps sources in order while they fit; the first one is cut rather than dropped. */
export function fitToBudget(sources: Source[], budget: number, language: TurnContext["language"]): { sources: Source[]; truncated: boolean } {
  // Usually all of them fit by a wide margin, which the byte bound shows without tokenising.
  if (sources.reduce((sum, source) => sum + tokensAtMost(source.content) + 20, 0) <= budget) return { sources, truncated: false };
  const kept: Source[] = [];
  let used = 0;
  for (const source of sources) {
    const cost = countTokens(source.content) + 20;
    if (used + cost <= budget) {
      kept.push(source);
      used += cost;
    } else if (kept.length === 0) {
      const cut = truncateToTokens(source.content, budget - 20);
      kept.push({ ...source, content: cut.text + TRUNCATION_MARKER[language === "es" ? "es" : "en"] });
      return { sources: kept, truncated: true };
    } else {
      return { sources: kept, truncated: true };
    }
  }
  return { sources: kept, truncated: false };
}
