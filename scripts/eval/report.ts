/**
 * Figures of a run: per question and per group (English, Spanish, cross-language, no-answer, the
 * quick CI subset, all), the committed baseline they are compared with, and the results page.
 */
import type { GroundingFigures } from "./grounding";
import type { LanguageFigures } from "./language-figures";
import type { IngestedDocument, QuestionResult } from "./run";

export interface GroupFigures {
  questions: number;
  /** Mean share of expected passages in the top 5 grounding sources, in percent; null for a group without passages (no-answer). */
  recallAt5: number | null;
  mrr: number | null;
  rungCorrect: number;
  citationMarkers: number;
  invalidCitations: number;
  refusals: number;
  languageCorrect: number;
  /** Answers grounded in sources that hold no expected passage (scoring.ts isMisleading); the goal is 0. */
  misleading: number;
  /** Turns the model stepped down to the general rung. */
  steppedDown: number;
  /** No-answer questions whose answer said it was general knowledge. */
  saidAloud: number;
  /** Answers quoting the key fact, of those whose retrieved passages held it. */
  factInAnswer: number;
  factRetrieved: number;
  p50LatencyMs: number;
  p95LatencyMs: number;
}

export type GroupName = "english" | "spanish" | "cross-language" | "no-answer" | "decoy" | "quick" | "all";

export const GROUPS: Record<GroupName, (r: QuestionResult) => boolean> = {
  english: (r) => r.question.lang === "en" && r.question.rung === "chunks",
  spanish: (r) => r.question.kind === "spanish",
  "cross-language": (r) => r.question.kind === "cross-language",
  "no-answer": (r) => r.question.kind === "no-answer",
  decoy: (r) => r.question.kind === "decoy",
  quick: (r) => r.question.quick,
  all: () => true,
};

export interface Baseline {
  date: string;
  settings: Record<string, string | number>;
  groups: Partial<Record<GroupName, GroupFigures>>;
  perQuestion: Record<string, { recall: number; reciprocalRank: number }>;
  /** Both rates of the demo organisation's grounding set (scripts/eval/grounding.ts); absent in older baselines. */
  grounding?: GroundingFigures;
  /** The language set's figures per language of the question (scripts/eval/language-figures.ts); absent in older baselines. */
  languages?: Record<string, LanguageFigures>;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function invalidCitationCount(r: QuestionResult): number {
  return r.citations.dangling + r.citations.unsupported.length;
}

export function figures(results: QuestionResult[]): GroupFigures {
  const answerable = results.filter((r) => r.question.passages.length > 0);
  const n = answerable.length;
  const latencies = results.map((r) => r.latencyMs);
  return {
    questions: results.length,
    recallAt5: n ? round((100 * answerable.reduce((sum, r) => sum + r.recall, 0)) / n) : null,
    mrr: n ? round(answerable.reduce((sum, r) => sum + r.reciprocalRank, 0) / n, 3) : null,
    rungCorrect: results.filter((r) => r.rung === r.question.rung).length,
    citationMarkers: results.reduce((sum, r) => sum + r.citations.markers, 0),
    invalidCitations: results.reduce((sum, r) => sum + invalidCitationCount(r), 0),
    refusals: results.filter((r) => r.refused).length,
    languageCorrect: results.filter((r) => r.language === r.question.lang).length,
    misleading: results.filter((r) => r.misleading).length,
    steppedDown: results.filter((r) => r.steppedDown).length,
    saidAloud: results.filter((r) => r.question.rung === "general" && r.saidAloud).length,
    factInAnswer: results.filter((r) => r.factInAnswer === true).length,
    factRetrieved: results.filter((r) => r.factInAnswer !== null).length,
    p50LatencyMs: Math.round(percentile(latencies, 50)),
    p95LatencyMs: Math.round(percentile(latencies, 95)),
  };
}

export function groupFigures(results: QuestionResult[]): Partial<Record<GroupName, GroupFigures>> {
  const groups: Partial<Record<GroupName, GroupFigures>> = {};
  for (const [name, belongs] of Object.entries(GROUPS) as Array<[GroupName, (r: QuestionResult) => boolean]>) {
    const members = results.filter(belongs);
    if (members.length > 0) groups[name] = figures(members);
  }
  return groups;
}

export function toBaseline(
  results: QuestionResult[],
  settings: Baseline["settings"],
  date: string,
  grounding?: GroundingFigures,
  languages?: Record<string, LanguageFigures>,
): Baseline {
  return {
    date,
    settings,
    groups: groupFigures(results),
    perQuestion: Object.fromEntries(results.map((r) => [r.question.id, { recall: r.recall, reciprocalRank: round(r.reciprocalRank, 3) }])),
    ...(grounding ? { grounding } : {}),
    ...(languages && Object.keys(languages).length > 0 ? { languages } : {}),
  };
}

const delta = (now: number | null, before: number | null | undefined, digits = 1): string => {
  if (now === null || before === undefined || before === null) return "–";
  const d = round(now - before, digits);
  return d === 0 ? "±0" : d > 0 ? `+${d}` : `${d}`;
};
const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

/** The settings that differ from the baseline's, so a delta can be read against its cause. */
function settingChanges(before: Baseline["settings"], now: Baseline["settings"]): string {
  const changed = ["model", "embeddings", "chunking", "retrieval"].filter((key) => before[key] !== undefined && before[key] !== now[key]);
  return changed.length === 0 ? ", same settings" : `, which ran with ${changed.map((key) => `${key} ${before[key]}`).join("; ")}`;
}

export function resultsPage(input: {
  date: string;
  settings: Baseline["settings"];
  documents: IngestedDocument[];
  results: QuestionResult[];
  previous?: Baseline;
  /** The demo organisation's grounding section (grounding.ts), placed after the totals. */
  grounding?: string;
  notes?: string;
}): string {
  const { date, settings, documents, results, previous } = input;
  const groups = groupFigures(results);
  const groupRows = (Object.keys(groups) as GroupName[]).map((name) => {
    const g = groups[name]!;
    const before = previous?.groups[name];
    return `| ${name} | ${g.questions} | ${g.recallAt5 ?? "–"} | ${delta(g.recallAt5, before?.recallAt5)} | ${g.mrr ?? "–"} | ${delta(g.mrr, before?.mrr, 3)} | ${g.rungCorrect}/${g.questions} | ${g.misleading}/${g.questions} | ${g.invalidCitations} of ${g.citationMarkers} | ${g.refusals} | ${g.languageCorrect}/${g.questions} | ${name === "no-answer" || name === "decoy" || name === "all" ? `${g.saidAloud}` : "–"} | ${g.factRetrieved ? `${g.factInAnswer}/${g.factRetrieved}` : "–"} | ${g.p50LatencyMs} / ${g.p95LatencyMs} |`;
  });
  const questionRows = results.map((r) => {
    const before = previous?.perQuestion[r.question.id];
    const top = r.sources[0] ? `${r.sources[0].document}${r.sources[0].section ? ` § ${r.sources[0].section}` : ""}` : "–";
    return `| ${r.question.id} | ${r.question.kind} | ${cell(r.question.question)} | ${r.rung}${r.steppedDown ? " (stepped down)" : ""}${r.rung === r.question.rung ? "" : ` (expected ${r.question.rung})`}${r.misleading ? " misleading" : ""} | ${r.question.passages.length ? r.ranks.map((rank) => rank || "✗").join(", ") : "–"} | ${round(100 * r.recall, 0)} | ${delta(100 * r.recall, before ? 100 * before.recall : undefined, 0)} | ${round(r.reciprocalRank, 2)} | ${r.factInAnswer === null ? "–" : r.factInAnswer ? "yes" : "no"} | ${invalidCitationCount(r)}/${r.citations.markers} | ${r.refused ? "yes" : "no"} | ${r.language} | ${Math.round(r.latencyMs)} | ${cell(top).slice(0, 90)} |`;
  });
  const documentRows = documents.map((d) => `| ${d.file} | ${cell(d.title)} | ${d.status} | ${d.chunks} | ${Math.round(d.ms)} |`);
  const misses = results.filter((r) => r.recall < 1 || invalidCitationCount(r) > 0 || r.rung !== r.question.rung || r.misleading);
  return `# Answer quality: evaluation results

Run with \`npm run eval\` on ${date}${previous ? `; deltas against the committed baseline of ${previous.date} (eval/baseline.json)${settingChanges(previous.settings, settings)}` : ""}.
How the figures are made, and how to read them: [eval/README.md](README.md).

## Settings

${Object.entries(settings)
  .map(([key, value]) => `- \`${key}\`: ${value}`)
  .join("\n")}

## Totals

recall@5 and MRR: of the passage holding the answer among the grounding sources (percent; 0–1).
Misleading grounding: answers grounded (chunks or document rung, after any step-down by the model) in sources that hold no expected passage; no-answer and decoy questions grounded at all. The goal is 0.
Invalid citations: \`[n]\` markers naming no source of the turn, or whose sentence the cited source does not support.
Key fact in answer: answers quoting the question's key fact, of those whose grounding sources held it.
Latency: POST /api/v1/chat to \`done\` on the socket, p50 / p95 in ms.

| group | questions | recall@5 | Δ | MRR | Δ | rung as expected | misleading grounding | invalid citations | refusals | answer language right | said "general knowledge" | key fact in answer | latency ms |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${groupRows.join("\n")}

${input.grounding ? `${input.grounding.trim()}\n\n` : ""}${input.notes ? `${input.notes.trim()}\n\n` : ""}## Per question

Ranks: where each expected passage sat among the grounding sources (✗: not among them).

| id | kind | question | rung | ranks | recall@5 | Δ | RR | fact in answer | invalid / cited | refused | language | ms | first source |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${questionRows.join("\n")}

## Misses worth reading

${
  misses.length === 0
    ? "None."
    : misses
        .map(
          (r) =>
            `- **${r.question.id}** (${r.question.kind}): ${cell(r.question.question)} → rung ${r.rung}, ranks ${r.ranks.join(", ") || "–"}${r.citations.unsupported.length ? `, unsupported: “${cell(r.citations.unsupported[0]!).slice(0, 160)}”` : ""}; sources: ${
              r.sources
                .map((s) => `[${s.index}] ${cell(s.document)}${s.section ? ` § ${cell(s.section)}` : ""}`)
                .join("; ")
                .slice(0, 400) || "none"
            }`,
        )
        .join("\n")
}

## Documents as ingested

Titles are the documents' own (HTML \`<title>\`/first h1, PDF metadata or first heading, first \`#\` heading); the file name only when a document names none.

| file | title | status | chunks | upload → COMPLETED ms |
|---|---|---|---|---|
${documentRows.join("\n")}
`;
}

export function consoleTable(results: QuestionResult[]): string {
  const groups = groupFigures(results);
  const lines = [
    `${"group".padEnd(15)} ${"n".padStart(3)} ${"R@5".padStart(6)} ${"MRR".padStart(6)} ${"rung".padStart(6)} ${"mislead".padStart(7)} ${"badcit".padStart(6)} ${"refuse".padStart(6)} ${"lang".padStart(6)} ${"fact".padStart(7)} ${"p50ms".padStart(6)}`,
  ];
  for (const [name, g] of Object.entries(groups)) {
    lines.push(
      `${name.padEnd(15)} ${String(g.questions).padStart(3)} ${String(g.recallAt5 ?? "–").padStart(6)} ${String(g.mrr ?? "–").padStart(6)} ${`${g.rungCorrect}`.padStart(6)} ${String(g.misleading).padStart(7)} ${String(g.invalidCitations).padStart(6)} ${String(g.refusals).padStart(6)} ${String(g.languageCorrect).padStart(6)} ${`${g.factInAnswer}/${g.factRetrieved}`.padStart(7)} ${String(g.p50LatencyMs).padStart(6)}`,
    );
  }
  return lines.join("\n");
}
