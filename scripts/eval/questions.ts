/**
 * The question set (eval/questions.json) and the corpus it is asked over (eval/corpus/), checked
 * on load so a typo in a file name or an empty fact fails the run instead of scoring zero.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CATALOG_LANGUAGES } from "../../lib/messages";

/** The repository's eval/ folder, wherever the command is run from. */
export const EVAL_DIR = fileURLToPath(new URL("../../eval", import.meta.url));
export const CORPUS_DIR = join(EVAL_DIR, "corpus");

const passage = z.object({
  /** Path under eval/corpus/. */
  file: z.string().min(1),
  /** Words of that file the retrieved passage must contain. */
  fact: z.string().min(3),
});

const question = z.object({
  id: z.string().min(1),
  kind: z.enum(["fact", "table", "two-passage", "paraphrase", "no-answer", "decoy", "spanish", "cross-language", "trap", "covered", "off-topic"]),
  /** The language the question is asked in (eval/questions.json and grounding.json: English and Spanish; eval/languages.json: all six). */
  lang: z.enum(CATALOG_LANGUAGES),
  quick: z.boolean(),
  question: z.string().min(3),
  rung: z.enum(["chunks", "general"]),
  passages: z.array(passage),
});

export type EvalQuestion = z.infer<typeof question>;

const questionFile = z.object({ questions: z.array(question).min(1) });

export function loadQuestions(path = join(EVAL_DIR, "questions.json")): EvalQuestion[] {
  const { questions } = questionFile.parse(JSON.parse(readFileSync(path, "utf8")));
  const ids = new Set<string>();
  for (const q of questions) {
    if (ids.has(q.id)) throw new Error(`eval: question id ${q.id} is used twice`);
    ids.add(q.id);
    if ((q.rung === "general") !== (q.passages.length === 0)) throw new Error(`eval: ${q.id} must expect the general rung exactly when it has no passages`);
    for (const p of q.passages) if (!existsSync(join(CORPUS_DIR, p.file))) throw new Error(`eval: ${q.id} names ${p.file}, which is not in ${CORPUS_DIR}`);
  }
  return questions;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

/** Every document of the corpus, as paths under eval/corpus/ (SOURCES.md and the like left out). */
export function allCorpusFiles(): string[] {
  return filesUnder(CORPUS_DIR)
    .filter((path) => /\.(html|md|pdf)$/.test(path) && !path.endsWith("SOURCES.md"))
    .map((path) => relative(CORPUS_DIR, path))
    .sort();
}
