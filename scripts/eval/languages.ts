/**
 * Grounding in every language the tutor speaks (eval/languages.json over eval/company/): short
 * company documents in six languages, and questions as employees type them — answered by
 * material in their own language (covered), by material in another language (cross-language,
 * both ways), or by nothing at all (off-topic, sharing an everyday word with the material). Asked
 * like the rest of the eval, through POST /api/v1/chat and the socket, in an organisation of its
 * own with one employee per language (their `locale` is that language, as an employee's profile
 * would say), which is deleted afterwards. Figures per language: language-figures.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Db } from "../../db/knex";
import { CATALOG_LANGUAGES, type CatalogLanguage } from "../../lib/messages";
import { login } from "../../test/harness/client";
import { createEvalOrganisation, dropEvalOrganisation } from "./organisation";
import { EVAL_DIR, type EvalQuestion } from "./questions";
import { askOne, ingestCorpus, type QuestionResult } from "./run";
import { containsFact } from "./scoring";

/** The company material, one folder per language: eval/company/<language>/*.md. */
export const COMPANY_DIR = join(EVAL_DIR, "company");

/**
 * `tuning`: read while the judge was improved; `held-out`: not looked at until it was settled
 * (then read, and tuned on, in the second round); `held-out-2`: written before the second round's
 * changes and not looked at until they were settled (then read, and tuned on, in the third);
 * `held-out-3`: written before the third round's changes, not looked at until they were settled.
 */
export const LANGUAGE_SPLITS = ["tuning", "held-out", "held-out-2", "held-out-3"] as const;

const languageQuestion = z.object({
  id: z.string().min(1),
  lang: z.enum(CATALOG_LANGUAGES),
  kind: z.enum(["covered", "cross-language", "off-topic"]),
  split: z.enum(LANGUAGE_SPLITS),
  /** Off-topic questions: the everyday word they share with the material. */
  shares: z.string().min(2).optional(),
  question: z.string().min(3),
  passages: z.array(z.object({ file: z.string().regex(/^[a-z]{2}\/[\w.-]+\.md$/), fact: z.string().min(3) })),
});

export type LanguageQuestion = z.infer<typeof languageQuestion>;

const languageFile = z.object({ questions: z.array(languageQuestion).min(1) });

/** The language a material file is written in: its folder. */
export const materialLanguage = (file: string): string => file.slice(0, 2);

/**
 * The set, checked on load: ids used once, off-topic questions without passages and the others
 * with, each fact a phrase of its file, and a cross-language question's material in another
 * language than the question (a covered one's in the same).
 */
export function loadLanguageQuestions(path = join(EVAL_DIR, "languages.json")): LanguageQuestion[] {
  const { questions } = languageFile.parse(JSON.parse(readFileSync(path, "utf8")));
  const ids = new Set<string>();
  for (const q of questions) {
    if (ids.has(q.id)) throw new Error(`eval: ${q.id} is used twice in eval/languages.json`);
    ids.add(q.id);
    if ((q.kind === "off-topic") !== (q.passages.length === 0)) throw new Error(`eval: ${q.id} must have passages exactly when it is not off-topic`);
    for (const p of q.passages) {
      if (!containsFact(readFileSync(join(COMPANY_DIR, p.file), "utf8"), p.fact)) throw new Error(`eval: ${q.id}'s fact is not in ${p.file}: ${p.fact}`);
      if ((materialLanguage(p.file) === q.lang) !== (q.kind === "covered")) throw new Error(`eval: ${q.id} is ${q.kind} but asks in ${q.lang} about ${p.file}`);
    }
  }
  return questions;
}

/** The question as the eval's runner and judge take it: a question the material answers expects the chunk rung. */
export function asEvalQuestion(q: LanguageQuestion): EvalQuestion {
  return {
    id: q.id,
    kind: q.kind,
    lang: q.lang,
    quick: false,
    question: q.question,
    rung: q.passages.length > 0 ? "chunks" : "general",
    passages: q.passages.map((p) => ({ file: p.file, fact: p.fact })),
  };
}

/** Every material file, as paths under eval/company/ (`<language>/<name>.md`), in a stable order. */
export function companyFiles(): string[] {
  return readdirSync(COMPANY_DIR)
    .flatMap((language) => readdirSync(join(COMPANY_DIR, language)).map((name) => `${language}/${name}`))
    .filter((file) => file.endsWith(".md"))
    .sort();
}

/** Asks the set in an organisation of its own holding only the company material; one employee per language asks that language's questions. */
export async function evaluateLanguages(db: Db, baseUrl: string, questions: LanguageQuestion[]): Promise<QuestionResult[]> {
  const org = await createEvalOrganisation(db, baseUrl, 0, 2);
  try {
    const documents = await ingestCorpus(
      baseUrl,
      org.admins.map((admin) => admin.token),
      companyFiles(),
      120_000,
      COMPANY_DIR,
    );
    const failed = documents.filter((d) => d.status !== "COMPLETED");
    if (failed.length > 0) throw new Error(`eval: company material not indexed: ${failed.map((d) => d.file).join(", ")}`);
    const documentIds = new Map(documents.map((d) => [d.file, d.documentId]));
    const tokens = new Map<CatalogLanguage, string>();
    for (const language of CATALOG_LANGUAGES) {
      const email = `eval-${language}-${org.orgId.slice(0, 8)}@example.com`;
      await db("users").insert({ org_id: org.orgId, email, name: `Eval ${language}`, role: "employee", department: "Evaluation", locale: language });
      tokens.set(language, (await login(baseUrl, email)).token);
    }
    const results: QuestionResult[] = [];
    for (const q of questions) results.push(await askOne(db, baseUrl, org.orgId, tokens.get(q.lang)!, asEvalQuestion(q), documentIds));
    return results;
  } finally {
    await dropEvalOrganisation(db, org.orgId);
  }
}
