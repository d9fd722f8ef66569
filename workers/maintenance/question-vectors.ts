/**
 * The `question-vectors` sweep: embeds answered tutor questions that have no vector for the
 * current embedding model, a bounded batch per run and one embedding call per organisation (so
 * each is charged to its own allowance). The content-gap report groups questions by these.
 */
import { listQuestionsToEmbed, saveQuestionVectors, type PendingQuestion } from "../../db/queries/question-vectors";
import type { WorkerDeps } from "../deps";

/** Per run: a minute's worth for a busy deployment, and one small embedding call per org. */
export const QUESTION_VECTOR_BATCH = 64;

export async function embedPendingQuestions(deps: Pick<WorkerDeps, "db" | "llm" | "config">, limit = QUESTION_VECTOR_BATCH): Promise<number> {
  const model = deps.config.embedding.EMBEDDING_MODEL;
  const pending = await listQuestionsToEmbed(deps.db, model, limit);
  // One call per asker: a question's cache entry is kept with who asked it, so their erasure finds it.
  const byAsker = new Map<string, PendingQuestion[]>();
  for (const question of pending) {
    const asker = `${question.orgId}:${question.userId}`;
    byAsker.set(asker, [...(byAsker.get(asker) ?? []), question]);
  }
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
  }
  return pending.length;
}
