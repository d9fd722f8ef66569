/**
 * One evaluation run against a running stack, the way users reach it: the corpus goes in through
 * POST /api/v1/documents (as an admin), each question through POST /api/v1/chat and the socket
 * (as an employee), one fresh session per question. The only direct database reads are the
 * judge's: chunk texts behind the grounding sources' ids (organisation.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/knex";
import { api, connect, join as joinSession, recordEvents, upload, waitFor, waitForTurnEnd } from "../../test/harness/client";
import { createEvalOrganisation, dropEvalOrganisation, sourceTexts, type EvalOrganisation } from "./organisation";
import { CORPUS_DIR, type EvalQuestion } from "./questions";
import { measureTurns, type TurnCost } from "./turn-cost";
import {
  answerLanguage,
  checkCitations,
  containsFact,
  isMisleading,
  isRefusal,
  withoutMarkers,
  passageRanks,
  recallAt5,
  reciprocalRank,
  saysGeneralKnowledge,
  type CitationCheck,
} from "./scoring";

const MIME: Record<string, string> = { ".html": "text/html", ".md": "text/markdown", ".pdf": "application/pdf" };

export interface IngestedDocument {
  file: string;
  documentId: string;
  status: string;
  title: string;
  chunks: number;
  ms: number;
}

export interface QuestionResult {
  question: EvalQuestion;
  rung: string;
  ranks: number[];
  recall: number;
  reciprocalRank: number;
  citations: CitationCheck;
  refused: boolean;
  /** The answer quotes the key fact, when a retrieved passage held it (null when none did). */
  factInAnswer: boolean | null;
  /**
   * The answer was grounded (chunks or document rung, after any step-down) in sources that do
   * not hold it: a no-answer question grounded at all, or an answerable one grounded while none
   * of its expected passages was among the sources.
   */
  misleading: boolean;
  /** The model said the sources did not answer and the turn moved to the general rung (`grounding_update`). */
  steppedDown: boolean;
  /** No-answer questions: the answer said it is general knowledge. */
  saidAloud: boolean;
  language: "en" | "es";
  latencyMs: number;
  answer: string;
  sources: Array<{ index: number; document: string; section: string | null }>;
  error?: string;
}

/** Uploads every file (a few at a time) and waits until each is COMPLETED or FAILED. */
export async function ingestCorpus(
  baseUrl: string,
  adminTokens: string[],
  files: string[],
  timeoutMs = 600_000,
  dir = CORPUS_DIR,
): Promise<IngestedDocument[]> {
  const results: IngestedDocument[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < files.length) {
      const adminToken = adminTokens[next % adminTokens.length]!;
      const file = files[next++]!;
      const started = performance.now();
      const name = file.split("/").at(-1)!;
      const response = await upload(baseUrl, adminToken, { name, bytes: readFileSync(join(dir, file)), type: MIME[name.slice(name.lastIndexOf("."))] });
      if (response.status !== 202 && response.status !== 200)
        throw new Error(`eval: uploading ${file} answered ${response.status}: ${JSON.stringify(response.body)}`);
      const documentId = response.body.document_id as string;
      const document = await waitFor(
        async () => {
          const current = await api(baseUrl, "GET", `/api/v1/documents/${documentId}`, { token: adminToken });
          return ["COMPLETED", "FAILED"].includes(current.body.status) ? current.body : undefined;
        },
        timeoutMs,
        `${file} indexed`,
      );
      results.push({ file, documentId, status: document.status, title: document.title, chunks: document.counts?.chunks ?? 0, ms: performance.now() - started });
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker));
  return results.sort((a, b) => a.file.localeCompare(b.file));
}

/** Asks every question, one at a time (latency is then the turn's own), and judges each answer. */
export async function askQuestions(
  db: Db,
  baseUrl: string,
  org: EvalOrganisation,
  questions: EvalQuestion[],
  documents: IngestedDocument[],
): Promise<QuestionResult[]> {
  const documentIds = new Map(documents.map((d) => [d.file, d.documentId]));
  const results: QuestionResult[] = [];
  for (const [i, question] of questions.entries()) {
    // A few questions per employee keeps each under the per-user rate limit whatever it is set to.
    const employee = org.employees[Math.floor(i / 10) % org.employees.length]!;
    results.push(await askOne(db, baseUrl, org.orgId, employee.token, question, documentIds));
  }
  return results;
}

/** Asks one question in a fresh session as `token` and judges the turn; `documentIds` maps a passage's file to its document. */
export async function askOne(
  db: Db,
  baseUrl: string,
  orgId: string,
  token: string,
  question: EvalQuestion,
  documentIds: Map<string, string>,
): Promise<QuestionResult> {
  const socket = await connect(baseUrl, token);
  const received = recordEvents(socket);
  const started = performance.now();
  try {
    const posted = await api(baseUrl, "POST", "/api/v1/chat", { token, body: { message: question.question } });
    if (posted.status !== 202) throw new Error(`POST /api/v1/chat answered ${posted.status}: ${JSON.stringify(posted.body)}`);
    await joinSession(socket, { sessionId: posted.body.session_id });
    const events = await waitForTurnEnd(received, posted.body.turn_id, 60_000);
    const latencyMs = performance.now() - started;
    const announced = events.find((e) => e.event === "grounding")?.payload ?? { rung: "none", sources: [] };
    // Retrieval is judged on what was retrieved; the rung on where the turn ended, after any step-down.
    const update = events.find((e) => e.event === "grounding_update")?.payload;
    const rung = (update ?? announced).rung as string;
    const answer = events
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content as string)
      .join("");
    const failure = events.find((e) => e.event === "error");
    const sources = (announced.sources ?? []) as Array<{
      index: number;
      document: string;
      section: string | null;
      sourceType: string;
      sourceId: string | null;
    }>;
    const judged = await sourceTexts(db, orgId, sources);
    const ranks = passageRanks(question, judged, documentIds);
    return {
      question,
      rung,
      misleading: isMisleading(rung, ranks),
      steppedDown: Boolean(update),
      ranks,
      recall: recallAt5(ranks),
      reciprocalRank: reciprocalRank(ranks),
      citations: checkCitations(answer, judged),
      factInAnswer: ranks.some((rank) => rank > 0) ? question.passages.some((p, i) => ranks[i]! > 0 && containsFact(withoutMarkers(answer), p.fact)) : null,
      refused: isRefusal(answer) || Boolean(failure),
      saidAloud: saysGeneralKnowledge(answer),
      language: answerLanguage(answer),
      latencyMs,
      answer,
      sources: sources.map(({ index, document, section }) => ({ index, document, section })),
      ...(failure ? { error: `${failure.payload.code}: ${failure.payload.message}` } : {}),
    };
  } finally {
    socket.disconnect();
  }
}

/** A whole run in its own organisation, removed afterwards: ingest `files`, ask `questions`. */
export async function evaluate(
  db: Db,
  baseUrl: string,
  questions: EvalQuestion[],
  files: string[],
): Promise<{ documents: IngestedDocument[]; results: QuestionResult[]; ingestMs: number; cost: TurnCost }> {
  const org = await createEvalOrganisation(db, baseUrl);
  try {
    const started = performance.now();
    const documents = await ingestCorpus(
      baseUrl,
      org.admins.map((admin) => admin.token),
      files,
    );
    const ingestMs = performance.now() - started;
    const { result: results, cost } = await measureTurns(questions.length, () => askQuestions(db, baseUrl, org, questions, documents));
    return { documents, results, ingestMs, cost };
  } finally {
    await dropEvalOrganisation(db, org.orgId);
  }
}
