/**
 * Who may read a document inside its organisation. Both restrictions are optional and, when
 * both are set, both must hold: `restricted_departments` (null = every department) names the
 * departments whose employees may read it, `restricted_course_id` limits it to that course's
 * enrollees. Admins of the org read everything. The course reference has no ON DELETE action,
 * so deleting a course cannot silently open a document to the whole org: the restriction has
 * to be changed first.
 *
 * `full_text_tsv` indexes a bounded prefix of the extracted text once, on write, so ranking
 * whole documents on the tutor's request path never runs to_tsvector over a multi-MB text.
 */
import type { Knex } from "knex";

/** How much of `full_text` the stored tsvector covers; enough to rank a document by its words. */
export const RANKED_PREFIX_CHARS = 100_000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("documents", (t) => {
    t.specificType("restricted_departments", "text[]");
    t.uuid("restricted_course_id").references("id").inTable("courses").onDelete("NO ACTION");
    t.index(["restricted_course_id"]);
    // An empty list would mean "nobody but admins", which is easy to set by accident.
    t.check("restricted_departments IS NULL OR cardinality(restricted_departments) > 0", {}, "documents_restricted_departments_not_empty");
  });
  await knex.raw(
    `ALTER TABLE documents ADD COLUMN full_text_tsv tsvector
       GENERATED ALWAYS AS (to_tsvector('simple', left(coalesce(full_text, ''), ${RANKED_PREFIX_CHARS}))) STORED`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("documents", (t) => {
    t.dropChecks(["documents_restricted_departments_not_empty"]);
    t.dropIndex(["restricted_course_id"]);
    t.dropColumns("full_text_tsv", "restricted_course_id", "restricted_departments");
  });
}
