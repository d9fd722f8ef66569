/**
 * How a catalog record's references are found: the caller's external ids (and people by SCIM
 * external id or email), looked up in the organisation only — another organisation's ids are
 * unknown here — and remembered for the rest of the batch.
 */
import type { Knex } from "knex";

export type PersonRef = { external_id: string } | { email: string };

/** Lookups of the caller's ids made while applying a batch; a delete forgets what it removed. */
export class ReferenceCache {
  private readonly ids = new Map<string, string | null>();

  async resolve(key: string, lookup: () => Promise<string | undefined>): Promise<string | undefined> {
    if (this.ids.has(key)) return this.ids.get(key) ?? undefined;
    const id = (await lookup()) ?? null;
    // An id not found yet may be created by a later record of the same batch: only hits are kept.
    if (id) this.ids.set(key, id);
    return id ?? undefined;
  }

  remember(key: string, id: string): void {
    this.ids.set(key, id);
  }

  /** A delete can cascade to children (a course's modules and lessons): forget everything. */
  clear(): void {
    this.ids.clear();
  }
}

/** The table each id-keyed type lives in. */
export const TABLE_OF = {
  skill_category: "skill_categories",
  skill: "skills",
  course: "courses",
  module: "modules",
  lesson: "lessons",
  exercise: "exercises",
  exercise_attempt: "exercise_attempts",
} as const;
export type KeyedTable = (typeof TABLE_OF)[keyof typeof TABLE_OF];

/** What the caller calls each referenced type, for a problem's message. */
const NOUN: Record<KeyedTable, string> = {
  skill_categories: "skill category",
  skills: "skill",
  courses: "course",
  modules: "module",
  lessons: "lesson",
  exercises: "exercise",
  exercise_attempts: "exercise attempt",
};

export const FOREIGN_KEY_VIOLATION = "23503";

export class UnknownReference extends Error {}

export interface Writer {
  trx: Knex.Transaction;
  orgId: string;
  cache: ReferenceCache;
}

export async function idOf(w: Writer, table: KeyedTable, externalId: string): Promise<string> {
  const id = await w.cache.resolve(`${table}:${externalId}`, async () => {
    const row = await w.trx(table).where({ org_id: w.orgId, external_id: externalId }).first("id");
    return row?.id as string | undefined;
  });
  if (!id) throw new UnknownReference(`${NOUN[table]} "${externalId}" is not in the catalog (import it first, or fix the reference)`);
  return id;
}

export async function personOf(w: Writer, person: PersonRef): Promise<string> {
  const [column, value] = "email" in person ? (["email", person.email] as const) : (["external_id", person.external_id] as const);
  const id = await w.cache.resolve(`person:${column}:${value}`, async () => {
    const row = await w
      .trx("users")
      .where({ org_id: w.orgId, [column]: value })
      .first("id");
    return row?.id as string | undefined;
  });
  // The message does not echo an email: problems are kept with the import, and a person may ask to be forgotten.
  if (!id) throw new UnknownReference(`no person of the organisation has this ${column === "email" ? "email" : "external_id"}`);
  return id;
}
