/**
 * The learning platform the chat agents read and (for admins) write: organisations, people,
 * skills, source documents, courses and progress. Every tenant table carries an indexed `org_id`
 * so every query can be scoped to one organisation, even when it already joins through a parent.
 * `documents` lives here rather than in the knowledge migration because courses point at it.
 */
import type { Knex } from "knex";

const TABLES_IN_CREATION_ORDER = [
  "organizations",
  "users",
  "skill_categories",
  "skills",
  "user_skills",
  "documents",
  "courses",
  "modules",
  "lessons",
  "enrollments",
  "exercises",
  "exercise_attempts",
  "spaced_repetition",
] as const;

function id(knex: Knex, t: Knex.CreateTableBuilder): void {
  t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
}

function orgId(t: Knex.CreateTableBuilder): void {
  t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE").index();
}

function createdAt(knex: Knex, t: Knex.CreateTableBuilder, column = "created_at"): void {
  t.timestamp(column, { useTz: true }).notNullable().defaultTo(knex.fn.now());
}

function fk(t: Knex.CreateTableBuilder, column: string, table: string, onDelete = "CASCADE", nullable = false) {
  const col = t.uuid(column).references("id").inTable(table).onDelete(onDelete);
  if (!nullable) col.notNullable();
  return col;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("organizations", (t) => {
    id(knex, t);
    t.text("name").notNullable();
    t.text("slug").notNullable().unique();
    t.jsonb("settings").notNullable().defaultTo("{}");
    createdAt(knex, t);
  });

  await knex.schema.createTable("users", (t) => {
    id(knex, t);
    orgId(t);
    // Login and admin look-ups compare lower-cased addresses; the check keeps writers honest.
    t.text("email").notNullable().unique();
    t.check("email = lower(email)", {}, "users_email_lowercase");
    t.text("name").notNullable();
    t.text("role").notNullable().checkIn(["admin", "employee"]);
    t.text("department");
    t.text("job_title");
    t.text("locale").notNullable().defaultTo("es").checkIn(["es", "en"]);
    createdAt(knex, t);
  });

  await knex.schema.createTable("skill_categories", (t) => {
    id(knex, t);
    orgId(t);
    t.text("name").notNullable();
  });

  await knex.schema.createTable("skills", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "category_id", "skill_categories", "SET NULL", true);
    t.text("name").notNullable();
  });

  await knex.schema.createTable("user_skills", (t) => {
    orgId(t);
    fk(t, "user_id", "users");
    fk(t, "skill_id", "skills");
    t.integer("level").notNullable().checkBetween([1, 5]);
    createdAt(knex, t, "updated_at");
    t.primary(["user_id", "skill_id"]);
  });

  await knex.schema.createTable("documents", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "uploaded_by", "users", "SET NULL", true);
    t.text("title").notNullable();
    t.text("filename").notNullable();
    t.text("mime_type");
    t.bigInteger("size_bytes").notNullable().defaultTo(0);
    // Same bytes uploaded twice to one organisation resolve to the existing document.
    t.text("content_hash").notNullable();
    t.text("storage_path");
    t.text("full_text");
    t.text("status").notNullable().defaultTo("PENDING").checkIn(["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED", "FAILED"]);
    t.text("error");
    t.integer("chunk_count").notNullable().defaultTo(0);
    t.jsonb("metadata").notNullable().defaultTo("{}");
    createdAt(knex, t);
    createdAt(knex, t, "updated_at");
    t.timestamp("completed_at", { useTz: true });
    t.unique(["org_id", "content_hash"]);
  });

  await knex.schema.createTable("courses", (t) => {
    id(knex, t);
    orgId(t);
    t.text("title").notNullable();
    t.text("description");
    t.text("language").notNullable().defaultTo("es").checkIn(["es", "en"]);
    fk(t, "source_document_id", "documents", "SET NULL", true);
    t.text("status").notNullable().defaultTo("published");
    createdAt(knex, t);
  });

  await knex.schema.createTable("modules", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "course_id", "courses");
    t.text("title").notNullable();
    t.text("summary");
    t.integer("position").notNullable();
    t.unique(["course_id", "position"]);
  });

  await knex.schema.createTable("lessons", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "course_id", "courses");
    fk(t, "module_id", "modules");
    t.text("title").notNullable();
    t.text("content").notNullable().defaultTo("");
    t.integer("position").notNullable();
    t.index(["module_id", "position"]);
    t.index(["course_id"]);
  });

  await knex.schema.createTable("enrollments", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "user_id", "users");
    fk(t, "course_id", "courses");
    t.text("status").notNullable().defaultTo("not_started").checkIn(["not_started", "in_progress", "completed"]);
    t.timestamp("deadline", { useTz: true });
    t.decimal("score", 4, 3).checkBetween([0, 1]);
    t.timestamp("started_at", { useTz: true });
    t.timestamp("completed_at", { useTz: true });
    t.unique(["user_id", "course_id"]);
    t.index(["course_id"]);
  });

  await knex.schema.createTable("exercises", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "lesson_id", "lessons");
    t.text("prompt").notNullable();
    t.text("kind").notNullable();
    t.jsonb("answer");
  });

  await knex.schema.createTable("exercise_attempts", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "exercise_id", "exercises");
    fk(t, "user_id", "users");
    t.decimal("score");
    t.boolean("passed").notNullable();
    createdAt(knex, t);
    t.index(["user_id", "exercise_id"]);
  });

  await knex.schema.createTable("spaced_repetition", (t) => {
    id(knex, t);
    orgId(t);
    fk(t, "user_id", "users");
    fk(t, "exercise_id", "exercises");
    t.timestamp("next_review_at", { useTz: true }).notNullable();
    t.integer("interval_days").notNullable().defaultTo(1);
    t.decimal("ease").notNullable().defaultTo(2.5);
    t.unique(["user_id", "exercise_id"]);
    t.index(["user_id", "next_review_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [...TABLES_IN_CREATION_ORDER].reverse()) {
    await knex.schema.dropTableIfExists(table);
  }
}
