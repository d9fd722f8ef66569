/**
 * Groups questions by meaning for the content-gap report: a single pass of leader clustering
 * over the gap questions, oldest first (a question joins the most similar group whose centroid
 * is at least `similarity` away in cosine terms, else starts its own). Simple and stable, and
 * enough to put rewordings of one question together; then each later question answered from
 * company material closes the group it belongs to, if it was asked after the group's last gap.
 *
 * Bounded: at most MAX_GROUPS_TRACKED groups are compared against (n × G dot products of unit
 * vectors, not n²); once that many exist, a question like none of them takes the place of the
 * oldest single-question group (singletons rank last, and a recent question should still get its
 * chance). It runs in a worker, never on the HTTP event loop, and hands the loop back every
 * YIELD_EVERY_MS so the worker's other jobs (streaming turns, lock renewals) carry on meanwhile.
 */
import type { AnsweredQuestion } from "../../db/queries/content-gaps";

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
  /** The sum of the members' unit vectors; `norm` is its length. */
  centroid: Float64Array;
  norm: number;
  members: AnsweredQuestion[];
  resolvedAt: Date | null;
}

const EXAMPLES = 3;
export const MAX_GROUPS_TRACKED = 1_000;
const YIELD_EVERY_MS = 20;

/** A gap: answered from general knowledge, or rated down by the person who asked. */
export const isGap = (q: AnsweredQuestion): boolean => q.rung === "general" || q.rating === "down";
/** Answered from the company's own material, and not rated down. */
const answeredFromMaterial = (q: AnsweredQuestion): boolean => (q.rung === "chunks" || q.rung === "document") && q.rating !== "down";

function unit(vector: number[], dimensions: number): Float64Array {
  const out = new Float64Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += (vector[i] ?? 0) ** 2;
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) out[i] = (vector[i] ?? 0) * scale;
  return out;
}

/** The group whose centroid is most similar to the unit vector `v`, if any reaches `similarity`. */
function closest(groups: Building[], v: Float64Array, similarity: number): Building | undefined {
  let best: Building | undefined;
  let bestScore = similarity;
  for (const group of groups) {
    if (group.norm === 0) continue;
    let dot = 0;
    const c = group.centroid;
    for (let i = 0; i < v.length; i++) dot += c[i]! * v[i]!;
    const score = dot / group.norm;
    if (score >= bestScore) {
      best = group;
      bestScore = score;
    }
  }
  return best;
}

function addTo(group: Building, v: Float64Array): void {
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    group.centroid[i] = group.centroid[i]! + v[i]!;
    norm += group.centroid[i]! ** 2;
  }
  group.norm = Math.sqrt(norm);
}

/** Each value once, in first-seen order. */
const once = (values: Array<string | null>): string[] => [...new Set(values.filter((v): v is string => Boolean(v)))];
const distinct = (values: Array<string | null>): string[] => once(values).sort();

/** Hands the event loop back now and then; a no-op between yields. */
function yielder(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < YIELD_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}

export async function groupContentGaps(questions: AnsweredQuestion[], similarity: number, maxGroups = MAX_GROUPS_TRACKED): Promise<GapGroup[]> {
  const chronological = [...questions].sort((a, b) => a.askedAt.getTime() - b.askedAt.getTime());
  const dimensions = Math.max(0, ...questions.map((q) => q.embedding.length));
  const pause = yielder();
  const groups: Building[] = [];
  for (const question of chronological.filter(isGap)) {
    await pause();
    const v = unit(question.embedding, dimensions);
    const group = closest(groups, v, similarity);
    if (group) {
      group.members.push(question);
      addTo(group, v);
      continue;
    }
    const fresh: Building = { centroid: Float64Array.from(v), norm: v.some((x) => x !== 0) ? 1 : 0, members: [question], resolvedAt: null };
    if (groups.length >= maxGroups) {
      const oldestSingle = groups.findIndex((g) => g.members.length === 1);
      if (oldestSingle < 0) continue; // every tracked group has company: this one-off is left out
      groups.splice(oldestSingle, 1);
    }
    groups.push(fresh);
  }
  for (const question of chronological.filter(answeredFromMaterial)) {
    await pause();
    const group = closest(groups, unit(question.embedding, dimensions), similarity);
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
