/**
 * The admin assistant's view of people and skills. Every query is scoped to one organisation;
 * results are plain rows the tools shape and cap. Skill levels run 1–5 (4 and 5 are experts).
 */
import type { Db } from "../knex";
import { containsPattern, foldName, foldedSql } from "./name-match";

export const EXPERT_LEVEL = 4;

export interface PersonRef {
  id: string;
  name: string;
  email: string;
  role: "admin" | "employee";
  department: string | null;
  is_active: boolean;
}

const PERSON_COLUMNS = ["u.id", "u.name", "u.email", "u.role", "u.department", "u.is_active"];

/** How a person arrived: the demo seed, SCIM, a first sign-in (just in time), this API, the CLI. */
export const PROVISIONED_VIA = ["seed", "scim", "jit", "api", "cli"] as const;
export type ProvisionedVia = (typeof PROVISIONED_VIA)[number];

export interface EmployeeFilter {
  search?: string;
  role?: "admin" | "employee";
  active?: boolean;
  department?: string;
  provisionedVia?: ProvisionedVia;
  limit: number;
  offset: number;
}

export interface EmployeeSummary extends PersonRef {
  job_title: string | null;
  active_courses: number;
  skills_count: number;
}

/** The org's people matching a filter: one definition, so the assistant and the console agree on what a search finds. */
function matchingPeople(db: Db, orgId: string, filter: EmployeeFilter) {
  const base = db("users as u").where("u.org_id", orgId);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    base.andWhere((q) => q.whereRaw(`${foldedSql("u.name")} LIKE ?`, [pattern]).orWhereRaw(`${foldedSql("u.email")} LIKE ?`, [pattern]));
  }
  if (filter.role) base.andWhere("u.role", filter.role);
  if (filter.active !== undefined) base.andWhere("u.is_active", filter.active);
  if (filter.department) base.andWhereRaw(`${foldedSql("u.department")} = ?`, [foldName(filter.department)]);
  if (filter.provisionedVia) base.andWhere("u.provisioned_via", filter.provisionedVia);
  return base;
}

async function countOf(query: ReturnType<typeof matchingPeople>): Promise<number> {
  const [counted] = await query.clone().count<{ count: string }[]>("* as count");
  return Number(counted?.count ?? 0);
}

export async function listEmployees(db: Db, orgId: string, filter: EmployeeFilter): Promise<{ rows: EmployeeSummary[]; total: number }> {
  const base = matchingPeople(db, orgId, filter);
  const rows = await base
    .clone()
    .select(
      ...PERSON_COLUMNS,
      "u.job_title",
      db.raw(`(SELECT COUNT(*)::int FROM enrollments e WHERE e.user_id = u.id AND e.org_id = u.org_id AND e.status = 'in_progress') AS active_courses`),
      db.raw(`(SELECT COUNT(*)::int FROM user_skills us WHERE us.user_id = u.id AND us.org_id = u.org_id) AS skills_count`),
    )
    .orderBy("u.name")
    .limit(filter.limit)
    .offset(filter.offset);
  return { rows, total: await countOf(base) };
}

/** A person as the console's people page shows them: how they arrived and when they last signed in through a provider. */
export interface PersonListing extends PersonRef {
  job_title: string | null;
  /** ISO 639-1. */
  locale: string;
  provisioned_via: ProvisionedVia;
  created_at: Date;
  deactivated_at: Date | null;
  last_sign_in_at: Date | null;
  has_identity_link: boolean;
  /** Set once their data was erased: the row is an anonymised placeholder (db/queries/person-erasure.ts). */
  erased_at: Date | null;
}

const LISTING_COLUMNS = [...PERSON_COLUMNS, "u.job_title", "u.locale", "u.provisioned_via", "u.created_at", "u.deactivated_at", "u.erased_at"];

function listingSelect(db: Db, query: ReturnType<typeof matchingPeople>) {
  return query.select(
    ...LISTING_COLUMNS,
    db.raw(`(SELECT MAX(il.last_sign_in_at) FROM identity_links il WHERE il.user_id = u.id AND il.org_id = u.org_id) AS last_sign_in_at`),
    db.raw(`EXISTS (SELECT 1 FROM identity_links il WHERE il.user_id = u.id AND il.org_id = u.org_id) AS has_identity_link`),
  );
}

/** One page of the org's people by name (id breaks ties, so pages never overlap), with the total. */
export async function listPeople(db: Db, orgId: string, filter: EmployeeFilter): Promise<{ rows: PersonListing[]; total: number }> {
  const base = matchingPeople(db, orgId, filter);
  const rows = await listingSelect(db, base.clone())
    .orderBy([{ column: "u.name" }, { column: "u.id" }])
    .limit(filter.limit)
    .offset(filter.offset);
  return { rows, total: await countOf(base) };
}

/** One person of the org as the people page lists them; undefined for another org's id. */
export async function findPersonListing(db: Db, orgId: string, userId: string): Promise<PersonListing | undefined> {
  return listingSelect(db, db("users as u").where({ "u.org_id": orgId, "u.id": userId })).first();
}

/** People whose name is `name` (folded); failing that, whose name or email contains it. */
export async function matchPeopleByName(db: Db, orgId: string, name: string, limit = 10): Promise<PersonRef[]> {
  const exact = await db("users as u")
    .where("u.org_id", orgId)
    .andWhereRaw(`${foldedSql("u.name")} = ?`, [foldName(name)])
    .select(PERSON_COLUMNS)
    .orderBy("u.name")
    .limit(limit);
  if (exact.length > 0) return exact;
  const pattern = containsPattern(name);
  return db("users as u")
    .where("u.org_id", orgId)
    .andWhere((q) => q.whereRaw(`${foldedSql("u.name")} LIKE ?`, [pattern]).orWhereRaw(`${foldedSql("u.email")} LIKE ?`, [pattern]))
    .select(PERSON_COLUMNS)
    .orderBy("u.name")
    .limit(limit);
}

/** The people among `ids` that belong to the org (another org's id simply does not come back). */
export async function findPeopleByIds(db: Db, orgId: string, ids: string[]): Promise<PersonRef[]> {
  if (ids.length === 0) return [];
  return db("users as u").where("u.org_id", orgId).whereIn("u.id", ids).select(PERSON_COLUMNS);
}

export async function activePeopleInDepartment(db: Db, orgId: string, department: string): Promise<PersonRef[]> {
  return db("users as u")
    .where({ "u.org_id": orgId, "u.is_active": true, "u.role": "employee" })
    .andWhereRaw(`${foldedSql("u.department")} = ?`, [foldName(department)])
    .select(PERSON_COLUMNS)
    .orderBy("u.name");
}

export async function listDepartments(db: Db, orgId: string): Promise<string[]> {
  const rows = await db("users").where({ org_id: orgId }).whereNotNull("department").distinct("department").orderBy("department");
  return rows.map((row: { department: string }) => row.department);
}

export interface ActivityRow {
  at: Date;
  course: string;
  lesson: string;
  passed: boolean;
  score: string | null;
}

export async function recentActivity(db: Db, orgId: string, userId: string, limit = 10): Promise<ActivityRow[]> {
  return db("exercise_attempts as a")
    .join("exercises as x", "x.id", "a.exercise_id")
    .join("lessons as l", "l.id", "x.lesson_id")
    .join("courses as c", "c.id", "l.course_id")
    .where({ "a.org_id": orgId, "a.user_id": userId })
    .select("a.created_at as at", "c.title as course", "l.title as lesson", "a.passed", "a.score")
    .orderBy("a.created_at", "desc")
    .limit(limit);
}

export interface SkillRef {
  id: string;
  name: string;
  category: string | null;
}

export async function matchSkillsByName(db: Db, orgId: string, name: string, limit = 10): Promise<SkillRef[]> {
  const select = (q: ReturnType<Db>) =>
    q.leftJoin("skill_categories as sc", "sc.id", "s.category_id").select("s.id", "s.name", "sc.name as category").orderBy("s.name").limit(limit);
  const exact = await select(
    db("skills as s")
      .where("s.org_id", orgId)
      .andWhereRaw(`${foldedSql("s.name")} = ?`, [foldName(name)]),
  );
  if (exact.length > 0) return exact;
  return select(
    db("skills as s")
      .where("s.org_id", orgId)
      .andWhereRaw(`${foldedSql("s.name")} LIKE ?`, [containsPattern(name)]),
  );
}

export interface SkillHolding {
  employee_id: string;
  employee: string;
  department: string | null;
  skill: string;
  category: string | null;
  level: number;
}

function holdings(db: Db, orgId: string) {
  return db("user_skills as us")
    .join("users as u", "u.id", "us.user_id")
    .join("skills as s", "s.id", "us.skill_id")
    .leftJoin("skill_categories as sc", "sc.id", "s.category_id")
    .where({ "us.org_id": orgId, "u.org_id": orgId, "u.is_active": true })
    .select("u.id as employee_id", "u.name as employee", "u.department", "s.name as skill", "sc.name as category", "us.level");
}

export async function skillsMatrix(db: Db, orgId: string, category?: string): Promise<SkillHolding[]> {
  const query = holdings(db, orgId).orderBy([{ column: "u.name" }, { column: "s.name" }]);
  if (category) query.andWhereRaw(`${foldedSql("sc.name")} = ?`, [foldName(category)]);
  return query;
}

export async function holdersOfSkills(db: Db, orgId: string, skillIds: string[], minLevel: number): Promise<SkillHolding[]> {
  if (skillIds.length === 0) return [];
  return holdings(db, orgId)
    .whereIn("s.id", skillIds)
    .andWhere("us.level", ">=", minLevel)
    .orderBy([{ column: "us.level", order: "desc" }, { column: "u.name" }]);
}

export interface SkillCoverage {
  skill: string;
  category: string | null;
  experts: number;
  holders: number;
}

/** Every skill of the org with how many active people hold it, and how many at expert level. */
export async function skillCoverage(db: Db, orgId: string): Promise<SkillCoverage[]> {
  const rows = await db.raw(
    `SELECT s.name AS skill, sc.name AS category,
            COUNT(u.id) FILTER (WHERE us.level >= ?)::int AS experts,
            COUNT(u.id)::int AS holders
       FROM skills s
       LEFT JOIN skill_categories sc ON sc.id = s.category_id
       LEFT JOIN user_skills us ON us.skill_id = s.id AND us.org_id = s.org_id
       LEFT JOIN users u ON u.id = us.user_id AND u.is_active
      WHERE s.org_id = ?
      GROUP BY s.id, s.name, sc.name
      ORDER BY experts, s.name`,
    [EXPERT_LEVEL, orgId],
  );
  return rows.rows;
}

export interface MentorshipPair {
  skill: string;
  mentor: string;
  mentor_department: string | null;
  mentor_level: number;
  mentee: string;
  mentee_department: string | null;
  mentee_level: number;
}

/** Experts (level ≥ 4) paired with people at level ≤ 2 on the same skill, biggest gap first. */
export async function mentorshipPairs(db: Db, orgId: string, limit: number): Promise<MentorshipPair[]> {
  const rows = await db.raw(
    `SELECT s.name AS skill, m.name AS mentor, m.department AS mentor_department, hi.level AS mentor_level,
            e.name AS mentee, e.department AS mentee_department, lo.level AS mentee_level
       FROM user_skills hi
       JOIN user_skills lo ON lo.skill_id = hi.skill_id AND lo.org_id = hi.org_id AND lo.user_id <> hi.user_id
       JOIN users m ON m.id = hi.user_id AND m.is_active
       JOIN users e ON e.id = lo.user_id AND e.is_active
       JOIN skills s ON s.id = hi.skill_id
      WHERE hi.org_id = ? AND hi.level >= ? AND lo.level <= 2
      ORDER BY hi.level - lo.level DESC, s.name, m.name, e.name
      LIMIT ?`,
    [orgId, EXPERT_LEVEL, limit],
  );
  return rows.rows;
}

/** A person's current level of one skill (null when they have none recorded). */
export async function skillLevelOf(db: Db, orgId: string, userId: string, skillId: string): Promise<number | null> {
  const row = await db("user_skills").where({ org_id: orgId, user_id: userId, skill_id: skillId }).first("level");
  return row ? Number(row.level) : null;
}

/** A person as an integration key reads them (people:read): who they are in the identity system too. */
export interface IntegrationPerson {
  id: string;
  external_id: string | null;
  email: string;
  name: string;
  department: string | null;
  job_title: string | null;
  role: "admin" | "employee";
  is_active: boolean;
}

/** One page of the org's people by name (id breaks ties), with the total: the integration people endpoint. */
export async function listIntegrationPeople(
  db: Db,
  orgId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: IntegrationPerson[]; total: number }> {
  const base = db("users as u").where("u.org_id", orgId);
  const rows = await base
    .clone()
    .select("u.id", "u.external_id", "u.email", "u.name", "u.department", "u.job_title", "u.role", "u.is_active")
    .orderBy([{ column: "u.name" }, { column: "u.id" }])
    .limit(page.limit)
    .offset(page.offset);
  const [counted] = await base.clone().count<{ count: string }[]>("* as count");
  return { rows, total: Number(counted?.count ?? 0) };
}
