/**
 * Applies one catalog or progress record (lib/catalog-records.ts) to an organisation's tables:
 * the one place where the catalog API, the records endpoint and a bulk import write. A record is
 * applied whole inside the caller's transaction, or not at all with a problem that names why; the
 * caller runs each record in its own savepoint, so a refused record leaves nothing behind.
 *
 * - An upsert is the whole record: a field left out is cleared (or takes its default), so a
 *   repeated sync converges on what the source says. Writing what is already there is
 *   `unchanged` and touches no row.
 * - References are the caller's external ids (and people by SCIM external id or email), looked
 *   up in the organisation only: another organisation's ids are unknown here.
 * - Rows the platform made itself (the seed, the admin console) have no external id and are never
 *   matched, so an integration cannot overwrite them.
 */
import type { Knex } from "knex";
import type { CatalogDelete, CatalogRecord, CatalogUpsert, RecordProblem } from "../../lib/catalog-records";
import { isPairKeyed } from "../../lib/catalog-records";
import { FOREIGN_KEY_VIOLATION, idOf, personOf, ReferenceCache, TABLE_OF, UnknownReference, type Writer } from "./catalog-references";
import { Json, upsertRow } from "./catalog-row-writes";

import type { ApplyResult } from "./catalog-row-writes";

export type { ApplyResult };
/** The batch's lookups, made by the import that applies many records (catalog-imports.ts). */
export { ReferenceCache };
export type Applied = { ok: true; result: ApplyResult } | { ok: false; problem: RecordProblem };

/** `enrollments.score` keeps three decimals: a score is compared and written as it will be stored. */
const storedScore = (score: number | null | undefined): number | null => (score === null || score === undefined ? null : Math.round(score * 1000) / 1000);

/**
 * A module's place in its course is unique. Moving a module to a place another one holds gives
 * that one the moved module's old place (a swap, so a reordering sync can send its records in any
 * order), or the course's next free place when the module is new or comes from another course.
 */
async function freePosition(w: Writer, courseId: string, position: number, existing: Record<string, unknown> | undefined): Promise<void> {
  const holder = await w
    .trx("modules")
    .where({ course_id: courseId, position })
    .whereNot("id", (existing?.id as string) ?? null)
    .first("id");
  if (!holder) return;
  const sameCourse = existing && existing.course_id === courseId;
  if (sameCourse) {
    // Park the moved module first: the swap must not pass through two modules at one place.
    await w.trx("modules").where({ id: existing.id }).update({ position: -1 });
    await w.trx("modules").where({ id: holder.id }).update({ position: existing.position });
    return;
  }
  const { max } = (await w.trx("modules").where({ course_id: courseId }).max("position as max").first()) as { max: number | null };
  await w
    .trx("modules")
    .where({ id: holder.id })
    .update({ position: (max ?? 0) + 1 });
}

async function upsert(w: Writer, record: CatalogUpsert): Promise<ApplyResult> {
  switch (record.type) {
    case "skill_category":
      return upsertRow(w, "skill_categories", { external_id: record.external_id }, { name: record.name });
    case "skill":
      return upsertRow(
        w,
        "skills",
        { external_id: record.external_id },
        { name: record.name, category_id: record.category ? await idOf(w, "skill_categories", record.category) : null },
      );
    case "course":
      return upsertRow(
        w,
        "courses",
        { external_id: record.external_id },
        {
          title: record.title,
          description: record.description ?? null,
          language: record.language,
          status: record.status,
          source_document_id: record.source_document ? await documentOf(w, record.source_document) : null,
        },
      );
    case "module": {
      const courseId = await idOf(w, "courses", record.course);
      const values = { course_id: courseId, title: record.title, summary: record.summary ?? null, position: record.position };
      return upsertRow(w, "modules", { external_id: record.external_id }, values, (existing) => freePosition(w, courseId, record.position, existing));
    }
    case "lesson": {
      const moduleId = await idOf(w, "modules", record.module);
      const { course_id: courseId } = (await w.trx("modules").where({ id: moduleId }).first("course_id")) as { course_id: string };
      return upsertRow(
        w,
        "lessons",
        { external_id: record.external_id },
        { module_id: moduleId, course_id: courseId, title: record.title, content: record.content, position: record.position },
      );
    }
    case "exercise":
      return upsertRow(
        w,
        "exercises",
        { external_id: record.external_id },
        { lesson_id: await idOf(w, "lessons", record.lesson), prompt: record.prompt, kind: record.kind, answer: new Json(record.answer ?? null) },
      );
    case "exercise_attempt": {
      const values: Record<string, unknown> = {
        exercise_id: await idOf(w, "exercises", record.exercise),
        user_id: await personOf(w, record.person),
        score: record.score ?? null,
        passed: record.passed,
      };
      if (record.attempted_at) values.created_at = record.attempted_at;
      return upsertRow(w, "exercise_attempts", { external_id: record.external_id }, values);
    }
    case "enrollment":
      return upsertRow(
        w,
        "enrollments",
        { user_id: await personOf(w, record.person), course_id: await idOf(w, "courses", record.course) },
        {
          status: record.status,
          deadline: record.deadline ?? null,
          score: storedScore(record.score),
          started_at: record.started_at ?? null,
          completed_at: record.completed_at ?? null,
        },
      );
    case "skill_level":
      return upsertSkillLevel(w, await personOf(w, record.person), await idOf(w, "skills", record.skill), record.level);
    case "review_schedule":
      return upsertRow(
        w,
        "spaced_repetition",
        { user_id: await personOf(w, record.person), exercise_id: await idOf(w, "exercises", record.exercise) },
        { next_review_at: record.next_review_at, interval_days: record.interval_days, ease: record.ease },
      );
  }
}

/** `user_skills` has no id of its own: it is keyed by the person and the skill, and its change time is kept. */
async function upsertSkillLevel(w: Writer, userId: string, skillId: string, level: number): Promise<ApplyResult> {
  const key = { org_id: w.orgId, user_id: userId, skill_id: skillId };
  const existing = await w.trx("user_skills").where(key).first("level");
  if (existing?.level === level) return "unchanged";
  if (existing) {
    await w.trx("user_skills").where(key).update({ level, updated_at: w.trx.fn.now() });
    return "updated";
  }
  await w.trx("user_skills").insert({ ...key, level });
  return "created";
}

async function documentOf(w: Writer, externalId: string): Promise<string> {
  const id = await w.cache.resolve(`documents:${externalId}`, async () => {
    const row = await w.trx("documents").where({ org_id: w.orgId, external_id: externalId }).first("id");
    return row?.id as string | undefined;
  });
  if (!id) throw new UnknownReference(`document "${externalId}" has not been pushed (documents API or npm run sync)`);
  return id;
}

/** Deletes what a delete record names; deleting what is not there is `unchanged`, so a repeated delete is harmless. */
async function remove(w: Writer, record: CatalogDelete): Promise<ApplyResult> {
  let removed: number;
  if (!isPairKeyed(record.type)) {
    const table = TABLE_OF[record.type];
    removed = await w
      .trx(table)
      .where({ org_id: w.orgId, external_id: (record as { external_id: string }).external_id })
      .delete();
  } else {
    const pair = await pairOf(w, record);
    if (!pair) return "unchanged";
    removed = await w.trx(pair.table).where(pair.where).delete();
  }
  if (removed === 0) return "unchanged";
  w.cache.clear();
  return "deleted";
}

/** The row a pair-keyed delete names, or none when one of the pair is unknown (then nothing of it can exist). */
async function pairOf(w: Writer, record: CatalogDelete): Promise<{ table: string; where: Record<string, string> } | undefined> {
  try {
    switch (record.type) {
      case "enrollment":
        return {
          table: "enrollments",
          where: { org_id: w.orgId, user_id: await personOf(w, record.person), course_id: await idOf(w, "courses", record.course) },
        };
      case "skill_level":
        return { table: "user_skills", where: { org_id: w.orgId, user_id: await personOf(w, record.person), skill_id: await idOf(w, "skills", record.skill) } };
      case "review_schedule":
        return {
          table: "spaced_repetition",
          where: { org_id: w.orgId, user_id: await personOf(w, record.person), exercise_id: await idOf(w, "exercises", record.exercise) },
        };
      default:
        return undefined;
    }
  } catch (error) {
    if (error instanceof UnknownReference) return undefined;
    throw error;
  }
}

/**
 * Applies one record in a savepoint of `trx`: whole, or rolled back with the problem. A unique
 * violation (another import of the organisation inserted the same id a moment earlier) is tried
 * once more, when the row is there to update.
 */
export async function applyCatalogRecord(trx: Knex.Transaction, orgId: string, record: CatalogRecord, cache = new ReferenceCache()): Promise<Applied> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await trx.transaction((savepoint) => {
        const w = { trx: savepoint, orgId, cache };
        return record.op === "delete" ? remove(w, record) : upsert(w, record);
      });
      return { ok: true, result };
    } catch (error) {
      cache.clear();
      if (error instanceof UnknownReference) return { ok: false, problem: { code: "UNKNOWN_REFERENCE", message: error.message } };
      const code = (error as { code?: string }).code;
      if (code === "23505" && attempt === 1) continue;
      if (code === "23505")
        return { ok: false, problem: { code: "CONFLICT", message: "another write to the same record happened at the same time; send it again" } };
      if (code === FOREIGN_KEY_VIOLATION && record.op === "delete") {
        return {
          ok: false,
          problem: { code: "CONFLICT", message: "documents are restricted to this course; lift the restriction (or delete them) before deleting the course" },
        };
      }
      throw error;
    }
  }
}
