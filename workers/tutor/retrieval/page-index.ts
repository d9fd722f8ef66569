/**
 * PageIndex retrieval for questions about the current course: the modules whose lessons answer
 * the question become the context, with the current lesson always included first. No
 * embeddings involved. The lesson text settles the choice when its evidence is decisive (one
 * module's text holds every term the question asks about and no other module's does; a course
 * of one module has nothing to choose): no model call. Otherwise
 * the model reads the course's module titles and summaries and picks module numbers (or "all").
 * The caller has checked that the reader may use the course; every lesson read here belongs to it.
 */
import { courseModules, lessonWithModule, lessonsOfModules, type LessonContent, type ModuleOutline } from "../../../db/queries/learner";
import type { WorkerDeps } from "../../deps";
import type { RetrievedSource } from "./types";
import { LABELS, MODULE_LABEL, MODULE_SELECTION_TASK } from "../../../lib/prompt-markers";
import { relevanceFor, type Relevance } from "./relevance";

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

/**
 * The one module whose text holds everything the question asks about (every term of one of its
 * clauses, in its own word or its family: relevance.ts), when no other module's text does; null
 * when the evidence does not decide (no module, or several, hold it all; a question without
 * content terms, "Can you explain this again?"). Pure: the unit tests use it directly.
 */
export function moduleByEvidence(modules: ModuleOutline[], lessons: LessonContent[], relevance: Relevance): ModuleOutline | null {
  if (relevance.terms.length === 0) return null;
  const holding = modules.filter((module) => {
    const texts = [`${module.title}. ${module.summary ?? ""}`, ...lessons.filter((l) => l.module_id === module.id).map((l) => `${l.title}. ${l.content}`)];
    return texts.some((text) => relevance.coversAll(text, 1));
  });
  return holding.length === 1 ? holding[0]! : null;
}

/** The lessons of the modules chosen for a question, in course order, and how they were chosen. */
export interface ModuleChoice {
  courseId: string;
  lessons: LessonContent[];
  by: "evidence" | "model" | "single_module" | "no_modules";
}

type PageIndexTurn = { orgId: string; userId: string; courseId: string; courseTitle: string; lessonId: string | null; question: string };

/** Chooses the modules that answer the question: by the lesson text's evidence when it decides, else by the model. */
export async function chooseModules(deps: WorkerDeps, { orgId, userId, courseId, question }: PageIndexTurn): Promise<ModuleChoice> {
  const modules = await courseModules(deps.db, orgId, courseId);
  if (modules.length === 0) return { courseId, lessons: [], by: "no_modules" };
  const [all, relevance] = await Promise.all([
    lessonsOfModules(
      deps.db,
      orgId,
      courseId,
      modules.map((m) => m.id),
    ),
    relevanceFor(deps, orgId, question),
  ]);
  if (modules.length === 1) return { courseId, lessons: all, by: "single_module" };
  const decided = moduleByEvidence(modules, all, relevance);
  if (decided) return { courseId, lessons: all.filter((lesson) => lesson.module_id === decided.id), by: "evidence" };
  const reply = await deps.llm.chat({ useCase: "tutor", orgId, userId }, [{ role: "user", content: moduleSelectionPrompt(modules, question) }], {
    maxTokens: 20,
    temperature: 0,
  });
  const selected = new Set(parseModuleSelection(reply.content, modules).map((m) => m.id));
  return { courseId, lessons: all.filter((lesson) => selected.has(lesson.module_id)), by: "model" };
}

/** The chosen lessons as sources, the current lesson first (read on its own when its module was not chosen). */
export async function pageIndexSearch(deps: WorkerDeps, turn: PageIndexTurn, chosen?: ModuleChoice): Promise<Omit<RetrievedSource, "index">[]> {
  const choice = chosen?.courseId === turn.courseId ? chosen : await chooseModules(deps, turn);
  if (choice.by === "no_modules") return [];
  let lessons = choice.lessons;
  const { orgId, courseId, lessonId, courseTitle } = turn;
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
