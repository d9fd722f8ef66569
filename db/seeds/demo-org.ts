/**
 * Writes the demo organisation "Acme Retail". Runs on every start of the embedded stack, so it
 * is idempotent: rows carry fixed UUIDs and are upserted, and passages whose chunk already holds
 * an embedding of the same text are not sent to the embedding model again. Embedding happens
 * before the write transaction so a slow model never holds a transaction open.
 */
import { createHash } from "node:crypto";
import { toVectorLiteral, type Db } from "../knex";
import { DEMO_COURSES, type CourseKey } from "./demo-courses";
import { DEMO_DOCUMENTS, documentFullText, sectionText, type DocumentKey } from "./demo-documents";
import { seedDemoInsights } from "./demo-insights";
import { DEMO_IDS, exerciseId, exerciseRefId, fixedId, lessonId, moduleId } from "./demo-ids";
import {
  DEMO_ADMIN_EMAIL,
  DEMO_ATTEMPTS,
  DEMO_EMPLOYEE_EMAIL,
  DEMO_ENROLLMENTS,
  DEMO_REVIEWS,
  DEMO_SKILL_CATEGORIES,
  DEMO_USER_SKILLS,
  DEMO_USERS,
} from "./demo-people";

export { DEMO_IDS };

export interface SeedDependencies {
  /** Embeds document passages (the caller adds any model-specific prefix). */
  embedPassages: (texts: string[]) => Promise<number[][]>;
}

export interface DemoOrganisation {
  orgId: string;
  adminId: string;
  employeeId: string;
  /** By lower-case email. */
  userIds: Record<string, string>;
  courseIds: Record<CourseKey, string>;
  /** Per course, module ids in position order. */
  moduleIds: Record<CourseKey, string[]>;
  documentIds: Record<DocumentKey, string>;
}

const daysFromNow = (days: number): Date => new Date(Date.now() + days * 86_400_000);
const json = (value: unknown): string => JSON.stringify(value);
const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const tokenCount = (text: string): number => Math.round(text.split(/\s+/).filter(Boolean).length * 1.3);

interface PendingChunk {
  documentId: string;
  position: number;
  content: string;
  metadata: Record<string, unknown>;
  needsEmbedding: boolean;
}

/** Every chunk the seed wants, marking those whose stored embedding is missing or stale. */
async function planChunks(db: Db): Promise<PendingChunk[]> {
  const plan: PendingChunk[] = [];
  for (const doc of DEMO_DOCUMENTS.filter((d) => d.chunked)) {
    const documentId = DEMO_IDS.documentIds[doc.key];
    const existing = await db("document_chunks").where({ document_id: documentId }).select("position", "content", db.raw("embedding IS NOT NULL AS embedded"));
    const stored = new Map(existing.map((row: { position: number; content: string; embedded: boolean }) => [row.position, row]));
    doc.sections.forEach((section, position) => {
      const content = sectionText(section);
      const current = stored.get(position);
      plan.push({
        documentId,
        position,
        content,
        metadata: { heading: section.heading, page_start: section.pageStart, page_end: section.pageEnd, position },
        needsEmbedding: !current || current.content !== content || !current.embedded,
      });
    });
  }
  return plan;
}

export async function seedDemoOrganisation(db: Db, deps: SeedDependencies): Promise<DemoOrganisation> {
  const chunks = await planChunks(db);
  const toEmbed = chunks.filter((chunk) => chunk.needsEmbedding);
  const vectors = toEmbed.length > 0 ? await deps.embedPassages(toEmbed.map((chunk) => chunk.content)) : [];
  if (vectors.length !== toEmbed.length) {
    throw new Error(`embedPassages returned ${vectors.length} vectors for ${toEmbed.length} passages`);
  }
  const embeddingFor = new Map(toEmbed.map((chunk, i) => [chunk, vectors[i]!]));

  return db.transaction(async (trx) => {
    // Upsert by slug/email rather than id so a pre-existing "acme" or demo user is adopted.
    const [org] = await trx("organizations")
      .insert({ id: DEMO_IDS.orgId, name: "Acme Retail", slug: DEMO_IDS.slug, settings: json({ default_locale: "es" }) })
      .onConflict("slug")
      .merge(["name"])
      .returning("id");
    const orgId: string = org.id;

    const userRows = await trx("users")
      .insert(
        DEMO_USERS.map((user, i) => ({
          id: fixedId(2, i + 1),
          org_id: orgId,
          email: user.email.toLowerCase(),
          name: user.name,
          role: user.role,
          department: user.department,
          job_title: user.jobTitle,
          locale: user.locale,
        })),
      )
      .onConflict("email")
      .merge(["org_id", "name", "role", "department", "job_title", "locale"])
      .returning(["id", "email"]);
    const userIds: Record<string, string> = Object.fromEntries(userRows.map((row: { id: string; email: string }) => [row.email, row.id]));
    const userId = (email: string): string => userIds[email.toLowerCase()]!;

    const categoryRows = DEMO_SKILL_CATEGORIES.map((category, i) => ({ id: fixedId(9, i + 1), org_id: orgId, name: category.name }));
    await trx("skill_categories").insert(categoryRows).onConflict("id").merge();
    const skillIds: Record<string, string> = {};
    const skillRows = DEMO_SKILL_CATEGORIES.flatMap((category, c) =>
      category.skills.map((name, s) => {
        skillIds[name] = fixedId(10, (c + 1) * 100 + s + 1);
        return { id: skillIds[name], org_id: orgId, category_id: categoryRows[c]!.id, name };
      }),
    );
    await trx("skills").insert(skillRows).onConflict("id").merge();
    await trx("user_skills")
      .insert(
        DEMO_USER_SKILLS.map((us) => ({ org_id: orgId, user_id: userId(us.email), skill_id: skillIds[us.skill], level: us.level, updated_at: trx.fn.now() })),
      )
      .onConflict(["user_id", "skill_id"])
      .merge();

    const now = new Date();
    for (const doc of DEMO_DOCUMENTS) {
      const fullText = documentFullText(doc);
      await trx("documents")
        .insert({
          id: DEMO_IDS.documentIds[doc.key],
          org_id: orgId,
          uploaded_by: userId(DEMO_ADMIN_EMAIL),
          title: doc.title,
          filename: doc.filename,
          mime_type: doc.mimeType,
          size_bytes: Buffer.byteLength(fullText, "utf8"),
          content_hash: sha256(fullText),
          storage_path: null,
          full_text: fullText,
          status: "COMPLETED",
          chunk_count: doc.chunked ? doc.sections.length : 0,
          metadata: json({ language: doc.language, pages: doc.sections.at(-1)?.pageEnd ?? 1, seeded: true }),
          completed_at: now,
        })
        .onConflict("id")
        .merge(["org_id", "title", "filename", "mime_type", "size_bytes", "content_hash", "full_text", "status", "chunk_count", "metadata"]);
      if (doc.chunked) {
        await trx("document_chunks").where({ document_id: DEMO_IDS.documentIds[doc.key] }).where("position", ">=", doc.sections.length).delete();
      }
    }

    for (const chunk of chunks) {
      const vector = embeddingFor.get(chunk);
      const row: Record<string, unknown> = {
        org_id: orgId,
        document_id: chunk.documentId,
        position: chunk.position,
        content: chunk.content,
        metadata: json(chunk.metadata),
        token_count: tokenCount(chunk.content),
      };
      if (vector) row.embedding = trx.raw("?::vector", [toVectorLiteral(vector)]);
      const merged = ["org_id", "content", "metadata", "token_count", ...(vector ? ["embedding"] : [])];
      await trx("document_chunks").insert(row).onConflict(["document_id", "position"]).merge(merged);
    }

    const courseIds = DEMO_IDS.courseIds;
    const moduleIds = {} as Record<CourseKey, string[]>;
    for (const [c, course] of DEMO_COURSES.entries()) {
      await trx("courses")
        .insert({
          id: courseIds[course.key],
          org_id: orgId,
          title: course.title,
          description: course.description,
          language: course.language,
          source_document_id: course.source ? DEMO_IDS.documentIds[course.source] : null,
          status: "published",
        })
        .onConflict("id")
        .merge(["org_id", "title", "description", "language", "source_document_id", "status"]);
      moduleIds[course.key] = course.modules.map((_, m) => moduleId(c, m));
      for (const [m, mod] of course.modules.entries()) {
        await trx("modules")
          .insert({ id: moduleId(c, m), org_id: orgId, course_id: courseIds[course.key], title: mod.title, summary: mod.summary, position: m + 1 })
          .onConflict("id")
          .merge();
        for (const [l, lesson] of mod.lessons.entries()) {
          await trx("lessons")
            .insert({
              id: lessonId(c, m, l),
              org_id: orgId,
              course_id: courseIds[course.key],
              module_id: moduleId(c, m),
              title: lesson.title,
              content: lesson.content,
              position: l + 1,
            })
            .onConflict("id")
            .merge();
          for (const [e, exercise] of lesson.exercises.entries()) {
            await trx("exercises")
              .insert({
                id: exerciseId(c, m, l, e),
                org_id: orgId,
                lesson_id: lessonId(c, m, l),
                prompt: exercise.prompt,
                kind: exercise.kind,
                answer: json(exercise.answer),
              })
              .onConflict("id")
              .merge();
          }
        }
      }
    }

    await trx("enrollments")
      .insert(
        DEMO_ENROLLMENTS.map((en, i) => ({
          id: fixedId(8, i + 1),
          org_id: orgId,
          user_id: userId(en.email),
          course_id: courseIds[en.course],
          status: en.status,
          deadline: en.deadlineInDays === null ? null : daysFromNow(en.deadlineInDays),
          score: en.score,
          started_at: en.startedDaysAgo === null ? null : daysFromNow(-en.startedDaysAgo),
          completed_at: en.completedDaysAgo === null ? null : daysFromNow(-en.completedDaysAgo),
        })),
      )
      .onConflict(["user_id", "course_id"])
      .merge(["org_id", "status", "deadline", "score", "started_at", "completed_at"]);

    await trx("exercise_attempts")
      .insert(
        DEMO_ATTEMPTS.map((attempt, i) => ({
          id: fixedId(11, i + 1),
          org_id: orgId,
          exercise_id: exerciseRefId(attempt.exercise),
          user_id: userId(attempt.email),
          score: attempt.score,
          passed: attempt.passed,
          created_at: daysFromNow(-attempt.daysAgo),
        })),
      )
      .onConflict("id")
      .merge();

    await trx("spaced_repetition")
      .insert(
        DEMO_REVIEWS.map((review, i) => ({
          id: fixedId(12, i + 1),
          org_id: orgId,
          user_id: userId(review.email),
          exercise_id: exerciseRefId(review.exercise),
          next_review_at: daysFromNow(review.dueInDays),
          interval_days: review.intervalDays,
          ease: review.ease,
        })),
      )
      .onConflict(["user_id", "exercise_id"])
      .merge(["org_id", "next_review_at", "interval_days", "ease"]);

    await seedDemoInsights(trx, orgId, (position) => userId(DEMO_USERS[position]!.email));

    return {
      orgId,
      adminId: userId(DEMO_ADMIN_EMAIL),
      employeeId: userId(DEMO_EMPLOYEE_EMAIL),
      userIds,
      courseIds: { ...courseIds },
      moduleIds,
      documentIds: { ...DEMO_IDS.documentIds },
    };
  });
}
