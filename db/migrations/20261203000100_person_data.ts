/**
 * An employee's data (issue 33, point 4): what they can take with them and how it is erased.
 *
 * - `person_exports`: one downloadable archive of a person's data (a zip of JSON plus a Markdown
 *   transcript per session), built by the `person-data` queue's `export` job and kept here like
 *   uploaded files are kept in `document_files`: in Postgres, so it is backed up, scoped by
 *   `org_id` and removed with the organisation. `requested_via` says whose copy it is: the
 *   person's own (`self`, `/api/v1/me/export`) or an admin's (`admin`); neither sees the other's.
 *   It expires (`expires_at`); an expired archive is never served and is removed by the next export.
 * - `person_erasures`: one erasure of a person, resumable like `org_deletions`: the step it is at,
 *   how many runs it took, what it removed so far (counts only, never what).
 * - `users.erased_at`: the row of an erased person is kept, anonymised, so the learning records
 *   the company keeps (enrolments, skills) and usage totals still add up; this says it was.
 */
import type { Knex } from "knex";

const STATUSES = ["queued", "running", "completed", "failed"] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("person_exports", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.uuid("requested_by").references("id").inTable("users").onDelete("SET NULL");
    t.text("requested_via").notNullable().checkIn(["self", "admin"], "person_exports_requested_via");
    t.text("status")
      .notNullable()
      .defaultTo("queued")
      .checkIn([...STATUSES], "person_exports_status");
    t.binary("archive");
    t.bigInteger("archive_bytes");
    // How many of each kind the archive holds ({sessions, messages, …}), shown before the download.
    t.jsonb("counts").notNullable().defaultTo("{}");
    t.text("error");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("finished_at", { useTz: true });
    t.timestamp("expires_at", { useTz: true });
    t.index(["org_id", "user_id", "created_at"]);
  });
  // One export under way per person and requester kind: asking again answers that one.
  await knex.raw("CREATE UNIQUE INDEX person_exports_one_open ON person_exports (user_id, requested_via) WHERE status IN ('queued', 'running')");

  await knex.schema.createTable("person_erasures", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.uuid("user_id").notNullable().references("id").inTable("users").onDelete("CASCADE");
    t.uuid("requested_by").references("id").inTable("users").onDelete("SET NULL");
    // Enrolments, skill levels, attempts and review schedules are kept (on the anonymised row) unless asked otherwise.
    t.boolean("keep_learning_records").notNullable().defaultTo(true);
    t.text("status")
      .notNullable()
      .defaultTo("queued")
      .checkIn([...STATUSES], "person_erasures_status");
    t.text("step");
    t.integer("runs").notNullable().defaultTo(1);
    t.jsonb("removed").notNullable().defaultTo("{}");
    t.text("error");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp("finished_at", { useTz: true });
    t.index(["org_id", "user_id", "created_at"]);
  });
  await knex.raw("CREATE UNIQUE INDEX person_erasures_one_open ON person_erasures (user_id) WHERE status IN ('queued', 'running', 'failed')");

  await knex.schema.alterTable("users", (t) => {
    t.timestamp("erased_at", { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("users", (t) => t.dropColumn("erased_at"));
  await knex.schema.dropTableIfExists("person_erasures");
  await knex.schema.dropTableIfExists("person_exports");
}
