/**
 * PageIndex retrieval for questions about the current course: the modules whose lessons answer
 * the question become the context, with the current lesson always included first. No
 * embeddings involved. The lesson text settles the choice when its evidence is decisive (one
 * module's text holds every term the question asks about and no other module's does; a course
 * of one module has nothing to choose): no model call. Otherwise the model reads the course's
 * module titles and summaries and picks module numbers (or "all"), and the text names the
 * likeliest choice, on which an answer starts while the model chooses (stages.ts): the modules
 * that hold the question when several do, else those holding most of it (likeliestModules).
 * The caller has checked that the reader may use the course; every lesson read here belongs to it.
 */
import { courseModules, lessonWithModule, lessonsOfModules, type LessonContent, type ModuleOutline } from "../../../db/queries/learner";
import type { Language } from "../../../lib/language";
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
 * The modules whose text (title and summary, or a lesson's title and text) holds everything the
 * question asks about: every term of one of its clauses, in its own word or its family
 * (relevance.ts); none for a question without content terms ("Can you explain this again?").
 */
export function modulesHolding(modules: ModuleOutline[], lessons: LessonContent[], relevance: Relevance): ModuleOutline[] {
  if (relevance.terms.length === 0) return [];
  return modules.filter((module) => {
    const texts = [`${module.title}. ${module.summary ?? ""}`, ...lessons.filter((l) => l.module_id === module.id).map((l) => `${l.title}. ${l.content}`)];
    return texts.some((text) => relevance.coversAll(text, 1));
  });
}

/** The one module that holds the question when no other does (modulesHolding); null when the evidence does not decide. Pure. */
export function moduleByEvidence(modules: ModuleOutline[], lessons: LessonContent[], relevance: Relevance): ModuleOutline | null {
  const holding = modulesHolding(modules, lessons, relevance);
  return holding.length === 1 ? holding[0]! : null;
}

/**
 * The modules the text makes likeliest when no single one holds the question: those that hold it
 * when several do, else those whose best text covers the most of its terms' weight (word families
 * count), else — nothing of the question in any module, or no content terms ("Can you explain
 * this again?") — all of them, what the model is told to answer when unsure. Pure.
 */
export function likeliestModules(modules: ModuleOutline[], lessons: LessonContent[], relevance: Relevance): ModuleOutline[] {
  const holding = modulesHolding(modules, lessons, relevance);
  if (holding.length > 0) return holding;
  const scores = modules.map((module) =>
    Math.max(
      relevance.coverage(`${module.title}. ${module.summary ?? ""}`),
      ...lessons.filter((l) => l.module_id === module.id).map((l) => relevance.coverage(`${l.title}. ${l.content}`)),
    ),
  );
  const best = Math.max(0, ...scores);
  return best > 0 ? modules.filter((_, i) => scores[i] === best) : modules;
}

/** The lessons of the modules chosen for a question, in course order, and how they were chosen. */
export interface ModuleChoice {
  courseId: string;
  lessons: LessonContent[];
  by: "evidence" | "model" | "likely" | "single_module" | "no_modules";
}

/**
 * How a question's modules are being chosen: settled at once (the text decides, or there is
 * nothing to choose), or by the model, with the modules the text makes likeliest
 * (likeliestModules) to start an answer on meanwhile.
 */
export type ModuleChoosing = { settled: ModuleChoice } | { byModel: Promise<ModuleChoice>; likely: ModuleChoice };

/** Whether two choices give the same lessons (so the same sources). */
export function sameLessons(a: ModuleChoice, b: ModuleChoice): boolean {
  return a.courseId === b.courseId && a.lessons.map((l) => l.id).join() === b.lessons.map((l) => l.id).join();
}

type PageIndexTurn = { orgId: string; userId: string; courseId: string; courseTitle: string; lessonId: string | null; question: string; language?: Language };

/** Starts choosing the modules that answer the question: by the lesson text's evidence when it decides, else by the model. */
export async function startChoosingModules(deps: WorkerDeps, { orgId, userId, courseId, question, language }: PageIndexTurn): Promise<ModuleChoosing> {
  const modules = await courseModules(deps.db, orgId, courseId);
  if (modules.length === 0) return { settled: { courseId, lessons: [], by: "no_modules" } };
  const [all, relevance] = await Promise.all([
    lessonsOfModules(
      deps.db,
      orgId,
      courseId,
      modules.map((m) => m.id),
    ),
    relevanceFor(deps, orgId, question, language),
  ]);
  if (modules.length === 1) return { settled: { courseId, lessons: all, by: "single_module" } };
  const lessonsOf = (chosen: ModuleOutline[]) => all.filter((lesson) => chosen.some((m) => m.id === lesson.module_id));
  const holding = modulesHolding(modules, all, relevance);
  if (holding.length === 1) return { settled: { courseId, lessons: lessonsOf(holding), by: "evidence" } };
  const byModel = deps.llm
    .chat({ useCase: "tutor", orgId, userId }, [{ role: "user", content: moduleSelectionPrompt(modules, question) }], { maxTokens: 20, temperature: 0 })
    .then((reply): ModuleChoice => ({ courseId, lessons: lessonsOf(parseModuleSelection(reply.content, modules)), by: "model" }));
  // Awaited by the caller; handled here too, so a caller that fails first leaves no unhandled rejection.
  byModel.catch(() => undefined);
  return { byModel, likely: { courseId, lessons: lessonsOf(likeliestModules(modules, all, relevance)), by: "likely" } };
}

/** Chooses the modules that answer the question (startChoosingModules), waiting for the model when it chooses. */
export async function chooseModules(deps: WorkerDeps, turn: PageIndexTurn): Promise<ModuleChoice> {
  const choosing = await startChoosingModules(deps, turn);
  return "settled" in choosing ? choosing.settled : choosing.byModel;
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
