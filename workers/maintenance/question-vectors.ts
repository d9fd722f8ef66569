/**
 * The `question-vectors` sweep: embeds answered tutor questions that have no vector for the
 * current embedding model, a bounded batch per run and one embedding call per asker (so each is
 * charged to its own organisation's allowance). The content-gap report groups questions by these.
 * An organisation whose AI allowance is spent gets no embedding call: its questions wait, and are
 * left out of the batch so they never hold back another organisation's.
 */
import { listQuestionsToEmbed, saveQuestionVectors, type PendingQuestion } from "../../db/queries/question-vectors";
import { spentAllowance } from "../allowance-check";
import type { WorkerDeps } from "../deps";

/** Per run: a minute's worth for a busy deployment, and one small embedding call per org. */
export const QUESTION_VECTOR_BATCH = 64;

/** Each pass finds at least one more spent organisation among the batch, or is the last. */
const MAX_PASSES = 4;

export interface QuestionSweep {
  embedded: number;
  /** Organisations whose questions were left waiting because their allowance is spent. */
  allowanceSpent: string[];
}

export async function embedPendingQuestions(deps: Pick<WorkerDeps, "db" | "llm" | "config">, limit = QUESTION_VECTOR_BATCH): Promise<QuestionSweep> {
  const model = deps.config.embedding.EMBEDDING_MODEL;
  const spent = new Set<string>();
  const checked = new Set<string>();
  let pending: PendingQuestion[] = [];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    pending = await listQuestionsToEmbed(deps.db, model, limit, [...spent]);
    const unknown = [...new Set(pending.map((question) => question.orgId))].filter((orgId) => !checked.has(orgId));
    for (const orgId of unknown) {
      checked.add(orgId);
      if (await spentAllowance(deps, orgId)) spent.add(orgId);
    }
    if (!pending.some((question) => spent.has(question.orgId))) break;
  }
  // One call per asker: a question's cache entry is kept with who asked it, so their erasure finds it.
  const byAsker = new Map<string, PendingQuestion[]>();
  for (const question of pending) {
    if (spent.has(question.orgId)) continue;
    const asker = `${question.orgId}:${question.userId}`;
    byAsker.set(asker, [...(byAsker.get(asker) ?? []), question]);
  }
  let embedded = 0;
  for (const questions of byAsker.values()) {
    const { orgId, userId } = questions[0]!;
    const vectors = await deps.llm.embed(
      questions.map((q) => q.content),
      "query",
      { orgId, userId },
    );
    await saveQuestionVectors(
      deps.db,
      model,
      questions.map((q, i) => ({ messageId: q.id, orgId, embedding: vectors[i]! })),
    );
    embedded += questions.length;
  }
  return { embedded, allowanceSpent: [...spent] };
}
