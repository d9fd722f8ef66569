/**
 * Grounding, both ways, on the demo organisation (eval/grounding.json): traps that share one
 * everyday word with its material must end on the general rung, and questions it answers, in an
 * employee's own words, must stay grounded in the passage that answers them — on the chunk rung
 * (the chunked manuals) or the document rung (the warehouse manual, whole text only). Asked like
 * the rest of the eval, through POST /api/v1/chat and the socket, by a fresh employee enrolled in
 * the demo's three courses (so every course document is a document-rung candidate), who is
 * deleted afterwards with everything they asked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Db } from "../../db/knex";
import { DEMO_COURSES } from "../../db/seeds/demo-courses";
import { DEMO_DOCUMENTS, documentFullText, type DocumentKey } from "../../db/seeds/demo-documents";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { login } from "../../test/harness/client";
import { EVAL_DIR, type EvalQuestion } from "./questions";
import { askOne, type QuestionResult } from "./run";
import { containsFact } from "./scoring";

const documentKeys = DEMO_DOCUMENTS.map((d) => d.key) as [DocumentKey, ...DocumentKey[]];

const groundingFile = z.object({
  traps: z.array(z.object({ id: z.string(), lang: z.enum(["en", "es"]), shares: z.string().min(2), question: z.string().min(3) })).min(20),
  covered: z
    .array(
      z.object({
        id: z.string(),
        lang: z.enum(["en", "es"]),
        question: z.string().min(3),
        passages: z.array(z.object({ document: z.enum(documentKeys), fact: z.string().min(3) })).min(1),
      }),
    )
    .min(20),
});

/** A passage's "file" in the demo set: the seed's document key, prefixed so it never meets a corpus path. */
const demoFile = (key: DocumentKey): string => `demo:${key}`;

/** The demo set as eval questions (kinds `trap` and `covered`), every fact checked against the seed's text. */
export function loadGroundingQuestions(path = join(EVAL_DIR, "grounding.json")): EvalQuestion[] {
  const parsed = groundingFile.parse(JSON.parse(readFileSync(path, "utf8")));
  const texts = new Map(DEMO_DOCUMENTS.map((d) => [d.key, documentFullText(d)]));
  const questions: EvalQuestion[] = [
    ...parsed.traps.map((t) => ({ id: t.id, kind: "trap" as const, lang: t.lang, quick: false, question: t.question, rung: "general" as const, passages: [] })),
    ...parsed.covered.map((c) => ({
      id: c.id,
      kind: "covered" as const,
      lang: c.lang,
      quick: false,
      question: c.question,
      rung: "chunks" as const,
      passages: c.passages.map((p) => {
        if (!containsFact(texts.get(p.document)!, p.fact)) throw new Error(`eval: ${c.id}'s fact is not in the demo's ${p.document}: ${p.fact}`);
        return { file: demoFile(p.document), fact: p.fact };
      }),
    })),
  ];
  const ids = new Set(questions.map((q) => q.id));
  if (ids.size !== questions.length) throw new Error("eval: eval/grounding.json uses an id twice");
  return questions;
}

/** Asks the demo set as a fresh employee of the demo organisation, one question at a time. */
export async function evaluateGrounding(db: Db, baseUrl: string, questions: EvalQuestion[]): Promise<QuestionResult[]> {
  const orgId = DEMO_IDS.orgId;
  const email = `eval-grounding-${Date.now()}@example.com`;
  const [{ id: userId }] = await db("users")
    .insert({ org_id: orgId, email, name: "Eval Grounding", role: "employee", department: "Evaluation", locale: "en" })
    .returning("id");
  try {
    for (const course of DEMO_COURSES)
      await db("enrollments").insert({ org_id: orgId, user_id: userId, course_id: DEMO_IDS.courseIds[course.key], status: "in_progress" });
    const { token } = await login(baseUrl, email);
    const documentIds = new Map(DEMO_DOCUMENTS.map((d) => [demoFile(d.key), DEMO_IDS.documentIds[d.key]]));
    const results: QuestionResult[] = [];
    for (const question of questions) results.push(await askOne(db, baseUrl, orgId, token, question, documentIds));
    return results;
  } finally {
    // Their sessions, messages and enrolments go with them.
    await db("users").where({ id: userId, org_id: orgId }).delete();
  }
}

export interface GroundingFigures {
  traps: number;
  /** Traps answered on a grounded rung (chunks or document, after any step-down): the goal is 0. */
  trapsGrounded: number;
  covered: number;
  /** Covered questions grounded with an expected passage among the sources: the goal is ≥ 95 %. */
  coveredGrounded: number;
  /** Covered questions grounded on the document rung (the warehouse manual has no chunks). */
  coveredOnDocument: number;
}

export function groundingFigures(results: QuestionResult[]): GroundingFigures {
  const traps = results.filter((r) => r.question.kind === "trap");
  const covered = results.filter((r) => r.question.kind === "covered");
  const grounded = (r: QuestionResult) => r.rung === "chunks" || r.rung === "document";
  return {
    traps: traps.length,
    trapsGrounded: traps.filter(grounded).length,
    covered: covered.length,
    coveredGrounded: covered.filter((r) => grounded(r) && !r.misleading).length,
    coveredOnDocument: covered.filter((r) => r.rung === "document" && !r.misleading).length,
  };
}

const percent = (part: number, whole: number): string => (whole ? `${Math.round((1000 * part) / whole) / 10} %` : "–");

/** One line for the console. */
export function groundingLine(f: GroundingFigures): string {
  return `grounding (demo org): traps grounded ${f.trapsGrounded}/${f.traps} (goal 0), covered grounded ${f.coveredGrounded}/${f.covered} = ${percent(f.coveredGrounded, f.covered)} (goal ≥ 95 %), ${f.coveredOnDocument} of them on the document rung`;
}

/** The results page's section: both rates against the baseline's, and every question. */
export function groundingSection(results: QuestionResult[], before?: GroundingFigures): string {
  const f = groundingFigures(results);
  const was = (then: number | undefined) => (then === undefined ? "" : ` (baseline ${then})`);
  const rows = results.map((r) => {
    const top = r.sources.map((s) => `${s.document}${s.section ? ` § ${s.section}` : ""}`).join("; ") || "–";
    const verdict =
      r.question.kind === "trap" ? (r.rung === "general" ? "ok" : "**grounded**") : r.misleading || r.rung === "general" ? "**not grounded**" : "ok";
    return `| ${r.question.id} | ${r.question.question.replace(/\|/g, "\\|")} | ${r.rung}${r.steppedDown ? " (stepped down)" : ""} | ${verdict} | ${top.replace(/\|/g, "\\|").slice(0, 120)} |`;
  });
  return `## Grounding, both ways (demo organisation)

${f.traps} traps (questions the demo material does not answer that share one everyday word with its titles, headings or text) and ${f.covered} covered questions (answered by it, in an employee's own words: synonyms, extra clauses, two questions in one, Spanish), from [grounding.json](grounding.json), asked by an employee enrolled in the demo's three courses.

- **Misleading groundings (traps grounded): ${f.trapsGrounded}/${f.traps}**${was(before?.trapsGrounded)} — the goal is 0.
- **Covered questions grounded in the passage that answers them: ${f.coveredGrounded}/${f.covered} = ${percent(f.coveredGrounded, f.covered)}**${was(before?.coveredGrounded)} — the goal is ≥ 95 %; ${f.coveredOnDocument} on the document rung.

| id | question | rung | verdict | sources |
|---|---|---|---|---|
${rows.join("\n")}
`;
}
