/**
 * PageIndex retrieval for questions about the current course: the model reads the course's
 * module titles and summaries and picks module numbers (or "all"); their lessons become the
 * context, with the current lesson always included first. No embeddings involved. The caller
 * has checked that the reader may use the course; every lesson read here belongs to it.
 */
import { courseModules, lessonWithModule, lessonsOfModules, type LessonContent, type ModuleOutline } from "../../../db/queries/learner";
import type { WorkerDeps } from "../../deps";
import type { RetrievedSource } from "./types";
import { LABELS, MODULE_LABEL, MODULE_SELECTION_TASK } from "../../../lib/prompt-markers";

export function moduleSelectionPrompt(modules: ModuleOutline[], question: string): string {
  const tree = modules.map((m) => `- ${MODULE_LABEL} ${m.position}: ${m.title} — ${m.summary ?? "(no summary)"}`).join("\n");
  return [
    "This is the outline of a course:",
    tree,
    "",
    `${LABELS.question}: ${question}`,
    "",
    `Which ${MODULE_SELECTION_TASK} or numbers contain the answer? Reply with the numbers only, comma-separated, or "all" if unsure.`,
  ].join("\n");
}

/** Robust parse of "2", "1, 3", "Modules 2 and 3", "all"; anything unusable means all. */
export function parseModuleSelection(reply: string, modules: ModuleOutline[]): ModuleOutline[] {
  if (/\ball\b|\btodos?\b/i.test(reply)) return modules;
  const numbers = new Set((reply.match(/\d+/g) ?? []).map(Number));
  const picked = modules.filter((m) => numbers.has(m.position));
  return picked.length > 0 ? picked : modules;
}

export async function pageIndexSearch(
  deps: WorkerDeps,
  {
    orgId,
    userId,
    courseId,
    courseTitle,
    lessonId,
    question,
  }: { orgId: string; userId: string; courseId: string; courseTitle: string; lessonId: string | null; question: string },
): Promise<Omit<RetrievedSource, "index">[]> {
  const modules = await courseModules(deps.db, orgId, courseId);
  if (modules.length === 0) return [];
  const reply = await deps.llm.chat({ useCase: "tutor", orgId, userId }, [{ role: "user", content: moduleSelectionPrompt(modules, question) }], {
    maxTokens: 20,
    temperature: 0,
  });
  const selected = parseModuleSelection(reply.content, modules);
  let lessons = await lessonsOfModules(
    deps.db,
    orgId,
    courseId,
    selected.map((m) => m.id),
  );
  if (lessonId) {
    const current = lessons.find((lesson) => lesson.id === lessonId) ?? (await lessonWithModule(deps.db, orgId, courseId, lessonId));
    if (current) lessons = [current, ...lessons.filter((lesson) => lesson.id !== current.id)];
  }
  return lessons.map((lesson: LessonContent) => ({
    document: courseTitle,
    section: `${lesson.module_title} > ${lesson.title}`,
    page: null,
    sourceType: "lesson" as const,
    sourceId: lesson.id,
    content: lesson.content,
  }));
}
