/**
 * Rows for the access suites, written straight into the demo org: documents with full text and
 * (optionally) embedded chunks, restricted as asked, and small courses with one module. Chunks
 * are embedded through the workers' own LLM client, so vector search sees what ingestion writes.
 */
import { randomUUID } from "node:crypto";
import { toVectorLiteral } from "../../../db/knex";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import type { Stack } from "../../support/stack";

export interface FixtureDocument {
  id: string;
  title: string;
  chunkIds: string[];
}

export interface FixtureCourse {
  id: string;
  title: string;
  moduleId: string;
  lessonIds: string[];
}

const documents: string[] = [];
const courses: string[] = [];

export async function insertDocument(
  stack: Stack,
  options: {
    title: string;
    sections: Array<{ heading: string; body: string }>;
    chunked: boolean;
    departments?: string[];
    courseId?: string;
    fullText?: string;
  },
): Promise<FixtureDocument> {
  const db = stack.server.deps.db;
  const fullText = options.fullText ?? options.sections.map((s) => `## ${s.heading}\n\n${s.body}`).join("\n\n");
  const [row] = await db("documents")
    .insert({
      org_id: DEMO_IDS.orgId,
      title: options.title,
      filename: `${randomUUID().slice(0, 8)}.md`,
      mime_type: "text/markdown",
      size_bytes: Buffer.byteLength(fullText),
      content_hash: randomUUID(),
      full_text: fullText,
      status: "COMPLETED",
      chunk_count: options.chunked ? options.sections.length : 0,
      restricted_departments: options.departments ?? null,
      restricted_course_id: options.courseId ?? null,
    })
    .returning("id");
  documents.push(row.id);
  const chunkIds: string[] = [];
  if (options.chunked) {
    const contents = options.sections.map((s) => `${s.heading}\n\n${s.body}`);
    const vectors = await stack.workers.deps.llm.embed(contents, "passage");
    for (const [position, content] of contents.entries()) {
      const [chunk] = await db("document_chunks")
        .insert({
          org_id: DEMO_IDS.orgId,
          document_id: row.id,
          position,
          content,
          metadata: JSON.stringify({ heading: options.sections[position]!.heading, position }),
          token_count: content.split(/\s+/).length,
          embedding: db.raw("?::vector", [toVectorLiteral(vectors[position]!)]),
        })
        .returning("id");
      chunkIds.push(chunk.id);
    }
  }
  return { id: row.id, title: options.title, chunkIds };
}

export async function insertCourse(
  stack: Stack,
  options: {
    title: string;
    module: string;
    summary: string;
    lessons: Array<{ title: string; content: string }>;
    sourceDocumentId?: string;
    archived?: boolean;
  },
): Promise<FixtureCourse> {
  const db = stack.server.deps.db;
  const id = randomUUID();
  const moduleId = randomUUID();
  await db("courses").insert({
    id,
    org_id: DEMO_IDS.orgId,
    title: options.title,
    language: "en",
    source_document_id: options.sourceDocumentId ?? null,
    status: options.archived ? "archived" : "published",
    archived_at: options.archived ? db.fn.now() : null,
  });
  courses.push(id);
  await db("modules").insert({ id: moduleId, org_id: DEMO_IDS.orgId, course_id: id, title: options.module, summary: options.summary, position: 1 });
  const lessonIds: string[] = [];
  for (const [i, lesson] of options.lessons.entries()) {
    const lessonId = randomUUID();
    await db("lessons").insert({
      id: lessonId,
      org_id: DEMO_IDS.orgId,
      course_id: id,
      module_id: moduleId,
      title: lesson.title,
      content: lesson.content,
      position: i + 1,
    });
    lessonIds.push(lessonId);
  }
  return { id, title: options.title, moduleId, lessonIds };
}

export async function enrol(stack: Stack, userId: string, courseId: string): Promise<void> {
  await stack.server.deps.db("enrollments").insert({ org_id: DEMO_IDS.orgId, user_id: userId, course_id: courseId, status: "in_progress" });
}

export async function unenrol(stack: Stack, userId: string, courseId: string): Promise<void> {
  await stack.server.deps.db("enrollments").where({ org_id: DEMO_IDS.orgId, user_id: userId, course_id: courseId }).delete();
}

/** Documents first: a course that restricts a document cannot be deleted before it. */
export async function removeFixtures(stack: Stack): Promise<void> {
  const db = stack.server.deps.db;
  await db("documents").whereIn("id", documents.splice(0)).delete();
  await db("courses").whereIn("id", courses.splice(0)).delete();
}
