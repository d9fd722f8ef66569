/**
 * Groups questions by meaning for the content-gap report: a single pass of leader clustering
 * over the gap questions, oldest first (a question joins the most similar group whose centroid
 * is at least `similarity` away in cosine terms, else starts its own). Simple and stable, and
 * enough to put rewordings of one question together; then each later question answered from
 * company material closes the group it belongs to, if it was asked after the group's last gap.
 */
import type { AnsweredQuestion } from "../../../db/queries/content-gaps";

export interface GapGroup {
  id: string;
  count: number;
  employees: number;
  examples: string[];
  languages: string[];
  departments: string[];
  firstAsked: Date;
  lastAsked: Date;
}

interface Building {
  centroid: Float64Array;
  members: AnsweredQuestion[];
  resolvedAt: Date | null;
}

const EXAMPLES = 3;

/** A gap: answered from general knowledge, or rated down by the person who asked. */
export const isGap = (q: AnsweredQuestion): boolean => q.rung === "general" || q.rating === "down";
/** Answered from the company's own material, and not rated down. */
const answeredFromMaterial = (q: AnsweredQuestion): boolean => (q.rung === "chunks" || q.rung === "document") && q.rating !== "down";

function cosine(centroid: Float64Array, vector: number[]): number {
  let dot = 0;
  let norm = 0;
  let normV = 0;
  for (let i = 0; i < centroid.length; i++) {
    const c = centroid[i]!;
    const v = vector[i] ?? 0;
    dot += c * v;
    norm += c * c;
    normV += v * v;
  }
  return norm === 0 || normV === 0 ? 0 : dot / Math.sqrt(norm * normV);
}

function closest(groups: Building[], vector: number[], similarity: number): Building | undefined {
  let best: Building | undefined;
  let bestScore = similarity;
  for (const group of groups) {
    const score = cosine(group.centroid, vector);
    if (score >= bestScore) {
      best = group;
      bestScore = score;
    }
  }
  return best;
}

/** Each value once, in first-seen order. */
const once = (values: Array<string | null>): string[] => [...new Set(values.filter((v): v is string => Boolean(v)))];
const distinct = (values: Array<string | null>): string[] => once(values).sort();

export function groupContentGaps(questions: AnsweredQuestion[], similarity: number): GapGroup[] {
  const chronological = [...questions].sort((a, b) => a.askedAt.getTime() - b.askedAt.getTime());
  const groups: Building[] = [];
  for (const question of chronological.filter(isGap)) {
    const group = closest(groups, question.embedding, similarity);
    if (group) {
      group.members.push(question);
      question.embedding.forEach((value, i) => (group.centroid[i] = (group.centroid[i] ?? 0) + value));
    } else {
      groups.push({ centroid: Float64Array.from(question.embedding), members: [question], resolvedAt: null });
    }
  }
  for (const question of chronological.filter(answeredFromMaterial)) {
    const group = closest(groups, question.embedding, similarity);
    if (group) group.resolvedAt = question.askedAt;
  }
  return groups
    .filter((group) => !group.resolvedAt || group.resolvedAt < group.members.at(-1)!.askedAt)
    .map((group) => ({
      id: group.members[0]!.id,
      count: group.members.length,
      employees: new Set(group.members.map((m) => m.userId)).size,
      examples: once(group.members.map((m) => m.content.trim()).reverse()).slice(0, EXAMPLES),
      languages: distinct(group.members.map((m) => m.language)),
      departments: distinct(group.members.map((m) => m.department)),
      firstAsked: group.members[0]!.askedAt,
      lastAsked: group.members.at(-1)!.askedAt,
    }))
    .sort((a, b) => b.employees - a.employees || b.count - a.count || b.lastAsked.getTime() - a.lastAsked.getTime());
}
