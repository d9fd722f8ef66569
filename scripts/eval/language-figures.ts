/**
 * The language set's figures (eval/languages.json), per language of the question: recall (the
 * questions the material answers, grounded with a source that holds the answer), misleading
 * groundings (an off-topic question grounded at all, or an answerable one grounded on sources
 * that do not hold its answer), refusals; and the goal they are held to — no language more than
 * GOAL_POINTS below English, no misleading grounding anywhere. Pure, so the stack run (`npm run
 * eval`) and the database-tier test judge alike.
 */
import { CATALOG_LANGUAGES } from "../../lib/messages";
import type { EvalQuestion } from "./questions";
import { LANGUAGE_SPLITS } from "./languages";

/** How far below English's recall a language may be, in points. */
export const GOAL_POINTS = 5;

/** One asked question as judged: where the turn ended, whether that was misleading, whether the answer refused. */
export interface JudgedTurn {
  question: Pick<EvalQuestion, "id" | "lang" | "kind" | "question" | "passages">;
  rung: string;
  misleading: boolean;
  refused: boolean;
  sources: Array<{ document: string }>;
}

export interface LanguageFigures {
  /** Questions the material answers (covered and cross-language). */
  answerable: number;
  /** Of those, grounded with a source holding the answer. */
  grounded: number;
  /** recall in percent (null without answerable questions). */
  recall: number | null;
  covered: { asked: number; grounded: number };
  crossLanguage: { asked: number; grounded: number };
  offTopic: number;
  offTopicGrounded: number;
  /** Off-topic questions grounded, plus answerable ones grounded on sources without their answer: the goal is 0. */
  misleading: number;
  refusals: number;
}

const isGrounded = (turn: JudgedTurn) => (turn.rung === "chunks" || turn.rung === "document") && !turn.misleading;
const round = (value: number) => Math.round(value * 10) / 10;

export function languageFigures(turns: readonly JudgedTurn[]): LanguageFigures {
  const answerable = turns.filter((t) => t.question.passages.length > 0);
  const ofKind = (kind: string) => {
    const asked = answerable.filter((t) => t.question.kind === kind);
    return { asked: asked.length, grounded: asked.filter(isGrounded).length };
  };
  const offTopic = turns.filter((t) => t.question.passages.length === 0);
  const grounded = answerable.filter(isGrounded).length;
  return {
    answerable: answerable.length,
    grounded,
    recall: answerable.length ? round((100 * grounded) / answerable.length) : null,
    covered: ofKind("covered"),
    crossLanguage: ofKind("cross-language"),
    offTopic: offTopic.length,
    offTopicGrounded: offTopic.filter((t) => t.rung === "chunks" || t.rung === "document").length,
    misleading: turns.filter((t) => t.misleading).length,
    refusals: turns.filter((t) => t.refused).length,
  };
}

/** Figures per language of the question, in the catalog's order (languages without questions left out). */
export function figuresByLanguage(turns: readonly JudgedTurn[]): Record<string, LanguageFigures> {
  return Object.fromEntries(
    CATALOG_LANGUAGES.filter((language) => turns.some((t) => t.question.lang === language)).map((language) => [
      language,
      languageFigures(turns.filter((t) => t.question.lang === language)),
    ]),
  );
}

/** What keeps the goal from being met, one line each; empty when it is met. */
export function languageGoalMisses(byLanguage: Record<string, LanguageFigures>): string[] {
  const misses: string[] = [];
  const english = byLanguage.en?.recall;
  for (const [language, f] of Object.entries(byLanguage)) {
    if (f.misleading > 0) misses.push(`${language}: ${f.misleading} misleading grounding(s)`);
    if (language !== "en" && english != null && f.recall !== null && f.recall < english - GOAL_POINTS)
      misses.push(`${language}: recall ${f.recall} % is more than ${GOAL_POINTS} points below English's ${english} %`);
  }
  return misses;
}

const ratio = ({ asked, grounded }: { asked: number; grounded: number }) => (asked ? `${grounded}/${asked}` : "–");

function table(byLanguage: Record<string, LanguageFigures>): string {
  const rows = Object.entries(byLanguage).map(
    ([language, f]) =>
      `| ${language} | ${f.answerable + f.offTopic} | **${f.recall ?? "–"}**${f.recall === null ? "" : " %"} | ${ratio(f.covered)} | ${ratio(f.crossLanguage)} | ${f.offTopicGrounded}/${f.offTopic} | **${f.misleading}** | ${f.refusals} |`,
  );
  return `| language | questions | recall | same language | cross-language | off-topic grounded | misleading | refusals |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}`;
}

/** One line per language for the console. */
export function languageLines(byLanguage: Record<string, LanguageFigures>): string {
  return Object.entries(byLanguage)
    .map(
      ([language, f]) =>
        `  ${language}: recall ${f.recall ?? "–"} % (same ${ratio(f.covered)}, cross ${ratio(f.crossLanguage)}), off-topic grounded ${f.offTopicGrounded}/${f.offTopic}, misleading ${f.misleading}, refusals ${f.refusals}`,
    )
    .join("\n");
}

/** The results page's section: the goal, the figures of the whole set and of each split, and every question. */
/** How each split (LANGUAGE_SPLITS, in order) is introduced on the results page. */
const SPLIT_TITLES = {
  tuning: "Tuning split (questions read while the judge was improved)",
  "held-out": "Held-out split (not looked at until the first round's judge was settled; read and tuned on in the second round)",
  "held-out-2": "Second held-out split (written before the second round's changes, not looked at until they were settled; read in the third)",
  "held-out-3": "Third held-out split (written before the third round, whose one change was not kept: the judge it measures is the second round's)",
} satisfies Record<(typeof LANGUAGE_SPLITS)[number], string>;

export function languageSection(input: { embeddings: string; all: JudgedTurn[]; splits: JudgedTurn[][] }): string {
  const all = figuresByLanguage(input.all);
  const misses = languageGoalMisses(all);
  const rows = input.all.map((t) => {
    const verdict = t.misleading ? "**misleading**" : t.question.passages.length > 0 ? (isGrounded(t) ? "grounded" : "**not grounded**") : "ok";
    const sources = t.sources.map((s) => s.document).join("; ") || "–";
    return `| ${t.question.id} | ${t.question.kind} | ${t.question.question.replace(/\|/g, "\\|")} | ${t.rung} | ${verdict} | ${sources.replace(/\|/g, "\\|").slice(0, 100)} |`;
  });
  return `## Grounding in every language (company material)

${input.all.length} questions from [languages.json](languages.json) over seven short company documents in six languages ([company/](company/)), asked by an employee whose profile language is the question's. Recall: questions the material answers (same language and cross-language, both ways) grounded with a source that holds the answer. Misleading: an off-topic question grounded at all, or an answerable one grounded on sources without its answer. Embeddings: ${input.embeddings}.

**Goal** (no language more than ${GOAL_POINTS} points below English, 0 misleading groundings): ${misses.length === 0 ? "met" : `not met — ${misses.join("; ")}`}.

All questions:

${table(all)}

${input.splits.map((turns, i) => `${SPLIT_TITLES[LANGUAGE_SPLITS[i]!]}:\n\n${table(figuresByLanguage(turns))}\n`).join("\n")}
| id | kind | question | rung | verdict | sources |
|---|---|---|---|---|---|
${rows.join("\n")}
`;
}
