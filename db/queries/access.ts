/**
 * Who may read what inside an organisation, written once as SQL so every path that puts
 * company material in a prompt applies the same rule. A reader is only `{orgId, userId}`: the
 * predicates look up the user's current role, department, active flag and enrollments at query
 * time, so a change (unenrolled, moved department, deactivated) applies to the very next read.
 *
 * - Admins of the org read every document and may use every course of it (archived included).
 * - An employee may use a course they are enrolled in that is not archived.
 * - An employee may read a document when each restriction set on it holds: their department is
 *   in `restricted_departments` (null = any) and they are enrolled in `restricted_course_id`
 *   (null = no course needed). Deactivated users read nothing.
 */
import type { Knex } from "knex";
import type { Db } from "../knex";

export interface Reader {
  orgId: string;
  userId: string;
}

/** The user row behind a reader, as the predicates need it (alias `u`). */
const ACTIVE_READER = "SELECT 1 FROM users u WHERE u.id = ? AND u.org_id = ? AND u.is_active";

/**
 * True when `reader` may read the document aliased `alias` (e.g. "d"); use it as a binding
 * (`… AND ?`) in raw SQL or with `whereRaw("?", [predicate])`.
 */
export function readableBy(db: Db | Knex.Transaction, reader: Reader, alias = "d"): Knex.Raw {
  return db.raw(
    `EXISTS (${ACTIVE_READER} AND ??.org_id = u.org_id AND (u.role = 'admin' OR (
        (??.restricted_departments IS NULL OR u.department = ANY(??.restricted_departments))
        AND (??.restricted_course_id IS NULL OR EXISTS (
          SELECT 1 FROM enrollments re WHERE re.org_id = u.org_id AND re.user_id = u.id AND re.course_id = ??.restricted_course_id)))))`,
    [reader.userId, reader.orgId, alias, alias, alias, alias, alias],
  );
}

/** True when `reader` may use the course aliased `alias` as tutor context. */
export function courseUsableBy(db: Db | Knex.Transaction, reader: Reader, alias = "c"): Knex.Raw {
  return db.raw(
    `EXISTS (${ACTIVE_READER} AND ??.org_id = u.org_id AND (u.role = 'admin' OR (
        ??.archived_at IS NULL AND EXISTS (
          SELECT 1 FROM enrollments ce WHERE ce.org_id = u.org_id AND ce.user_id = u.id AND ce.course_id = ??.id))))`,
    [reader.userId, reader.orgId, alias, alias, alias],
  );
}
