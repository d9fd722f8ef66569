/**
 * The two stages before generation, as the turn's one job runs them: each announces itself to
 * the client with `stage` events and keeps its result for a redelivered attempt (checkpoints.ts).
 * Classifying may search and start the answer itself (routeTurn); the retrieve stage then uses
 * the search already done rather than running it again.
 */
import type { Logger } from "pino";
import { annotateSpan } from "../../lib/telemetry/spans";
import type { Intent } from "../../queues/payloads";
import type { WorkerDeps } from "../deps";
import { unrecoverableIfConfig } from "../turns/stage-failure";
import type { TurnEmitter } from "../turns/turn-emitter";
import { classifyByModel, heuristicIntent } from "./intent";
import { keepClassification, keepRetrieval, type Classification } from "./checkpoints";
import { runRetrievalLadder } from "./retrieval/ladder";
import { sameLessons, startChoosingModules, type ModuleChoice } from "./retrieval/page-index";
import { relevanceFor } from "./retrieval/relevance";
import { SpeculativeAnswer } from "./speculation";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

/** How the turn's route was settled, with what settling it already produced. */
export interface Routing {
  classification: Classification;
  /** The search that was run while the route was settled, when one was: of the organisation's material, or of the course. */
  searched?: RetrievalOutcome;
  /** The course and lesson `searched` was run in (null outside a course): it stands only for a turn that still has them. */
  searchedIn?: { courseId: string | null; lessonId: string | null };
  /** The answer started on the likeliest route while the model classified, its events held (speculation.ts). */
  speculation?: SpeculativeAnswer;
}

/** Reads the turn's context again: a course the employee may no longer use is dropped (turn-context.ts). */
export type AccessCheck = () => Promise<TurnContext>;

/** Decides the turn's intent and keeps it. */
export async function classifyTurn(deps: WorkerDeps, turn: TurnContext, events: TurnEmitter, log: Logger, recheck: AccessCheck): Promise<Routing> {
  await events.emit("stage", { stage: "classify", status: "started" });
  let routing: Routing | undefined;
  try {
    routing = await routeTurn(deps, turn, events, log, recheck);
    const { intent, decidedBy } = routing.classification;
    log.info({ intent, decidedBy, ...(routing.speculation ? { speculatedOn: routing.speculation.retrieval.intent } : {}) }, "turn classified");
    annotateSpan({ "skillnet.intent": intent, "skillnet.intent.decided_by": decidedBy });
    await keepClassification(deps.redis, turn.turnId, routing.classification);
    await events.emit("stage", { stage: "classify", status: "completed", detail: intent });
    return routing;
  } catch (error) {
    routing?.speculation?.discard();
    throw unrecoverableIfConfig(error);
  }
}

/**
 * The route, with at most one model round trip before the answer's first token. The heuristics
 * settle greetings and progress questions. Inside a course see routeCourseTurn. Outside a course
 * the organisation's material is searched first (no model call but the query's embedding):
 * sources that answer the question settle it as company knowledge, without asking the model.
 * Otherwise the model classifies while the answer on the likeliest route already streams, held
 * until the verdict (speculation.ts).
 */
async function routeTurn(deps: WorkerDeps, turn: TurnContext, events: TurnEmitter, log: Logger, recheck: AccessCheck): Promise<Routing> {
  const heuristic = heuristicIntent(turn.question);
  if (heuristic) return { classification: { intent: heuristic, decidedBy: "heuristic" } };
  const input = { message: turn.question, courseTitle: turn.courseTitle, lessonTitle: turn.lessonTitle };
  const call = { orgId: turn.orgId, userId: turn.userId };
  if (turn.courseId) return routeCourseTurn(deps, turn, events, log, recheck, classifyByModel(deps.llm, input, call));
  const searched = await runRetrievalLadder(deps, turn, "cross_course");
  const searchedIn = { courseId: null, lessonId: null };
  if (searched.rung !== "general") return { classification: { intent: "cross_course", decidedBy: "evidence" }, searched, searchedIn };
  const guess = await likelyIntent(deps, turn);
  const speculation = SpeculativeAnswer.start(deps, turn, guess === "off_topic" ? nothingFound(searched, guess) : searched, events, log);
  try {
    return { classification: { intent: await classifyByModel(deps.llm, input, call), decidedBy: "model" }, searched, searchedIn, speculation };
  } catch (error) {
    speculation.discard();
    throw error;
  }
}

/**
 * A question inside a course: the model classifies while the course is searched and its answer
 * starts, held until the verdict (speculation.ts). The modules are chosen by the lesson text when
 * its evidence decides, else by the model at the same time as the classification (page-index.ts);
 * the employee's access to the course is then checked again, so the answer prompt never holds
 * the course of an employee unenrolled meanwhile (the module titles may have reached the
 * module-choice call), and once more after the verdict (generate.handler.ts), so an answer
 * started before an unenrolment is discarded unseen. A failed search is left to the retrieve
 * stage, which runs it again and reports its own failure.
 */
async function routeCourseTurn(
  deps: WorkerDeps,
  turn: TurnContext,
  events: TurnEmitter,
  log: Logger,
  recheck: AccessCheck,
  classifying: Promise<Intent>,
): Promise<Routing> {
  const started = startCourseAnswer(deps, turn, events, log, recheck).catch((error: unknown) => {
    log.warn({ err: error }, "could not search the course while the model classified; the retrieve stage searches it");
    return undefined;
  });
  let intent: Intent;
  try {
    intent = await classifying;
  } catch (error) {
    void started.then((answer) => answer?.speculation.discard());
    throw error;
  }
  const answer = await started;
  return { classification: { intent, decidedBy: "model" }, ...(answer ?? {}) };
}

type CourseAnswer = Pick<Routing, "searched" | "searchedIn"> & { speculation: SpeculativeAnswer };

/**
 * Chooses the modules, checks access again, searches the course and starts the answer on it;
 * nothing when the course was dropped. When the model chooses the modules, the answer starts
 * meanwhile on those the lesson text makes likeliest (page-index.ts likeliestModules): kept when
 * the model's choice gives the same lessons, discarded unseen otherwise (its usage is still
 * charged), and started again on the model's choice (after access is checked once more).
 */
async function startCourseAnswer(
  deps: WorkerDeps,
  turn: TurnContext,
  events: TurnEmitter,
  log: Logger,
  recheck: AccessCheck,
): Promise<CourseAnswer | undefined> {
  const courseId = turn.courseId!;
  const choosing = await startChoosingModules(deps, { ...turn, courseId, courseTitle: turn.courseTitle ?? "" });
  const answerOn = async (modules: ModuleChoice): Promise<CourseAnswer | undefined> => {
    const current = await recheck();
    if (current.courseId !== courseId) return undefined;
    const searched = await runRetrievalLadder(deps, current, "in_course", modules);
    return { searched, searchedIn: { courseId, lessonId: current.lessonId }, speculation: SpeculativeAnswer.start(deps, current, searched, events, log) };
  };
  if ("settled" in choosing) {
    log.info({ courseId, modulesChosenBy: choosing.settled.by }, "course modules chosen");
    return answerOn(choosing.settled);
  }
  let likely: CourseAnswer | undefined;
  try {
    likely = await answerOn(choosing.likely);
    const chosen = await choosing.byModel;
    const kept = Boolean(likely && sameLessons(choosing.likely, chosen));
    log.info({ courseId, modulesChosenBy: "model", likelyModulesKept: kept }, "course modules chosen");
    if (kept) return likely;
    likely?.speculation.discard();
    likely = undefined;
    return await answerOn(chosen);
  } catch (error) {
    likely?.speculation.discard();
    throw error;
  }
}

/**
 * The likelier verdict for a question outside a course that no material answers: company
 * knowledge when it names anything the organisation's material mentions ("sick days", "payroll
 * team") or nothing at all (a follow-up: "How long does that take?"), off-topic when everything it
 * names is foreign to that material ("Who won the 1998 football world cup?").
 */
async function likelyIntent(deps: WorkerDeps, turn: TurnContext): Promise<Intent> {
  // Read a moment ago by the search: remembered (relevance.ts).
  const relevance = await relevanceFor(deps, turn.orgId, turn.question, turn.language);
  // A question that names nothing at all ("How long does that take?") leans on the conversation: a follow-up, not small talk about sports.
  return relevance.terms.length === 0 || relevance.mentioned.some(Boolean) ? "cross_course" : "off_topic";
}

/** The general rung with no sources, for an intent that searches nothing. */
function nothingFound(searched: RetrievalOutcome, intent: Intent): RetrievalOutcome {
  return { ...searched, intent, rung: "general", source: "none", sources: [], truncated: false };
}

/** The search already run to settle the route, when the ladder for `intent` would run the same one. */
function searchedFor(routing: Routing | undefined, turn: TurnContext, intent: Intent): RetrievalOutcome | undefined {
  const searched = routing?.searched;
  const searchedIn = routing?.searchedIn;
  // Searched for another course, or for one the employee has lost since: never used.
  if (!searched || !searchedIn || searchedIn.courseId !== turn.courseId || searchedIn.lessonId !== turn.lessonId) return undefined;
  if (turn.courseId) return intent === "in_course" ? searched : undefined;
  // Without a course an in_course verdict searches the organisation's material too (ladder.ts).
  if (intent === "cross_course" || intent === "in_course") return { ...searched, intent };
  return undefined;
}

/** Runs the retrieval ladder for `intent`, announces the rung, and keeps the sources for generation. */
export async function retrieveForTurn(
  deps: WorkerDeps,
  turn: TurnContext,
  intent: Intent,
  events: TurnEmitter,
  log: Logger,
  routing?: Routing,
): Promise<RetrievalOutcome> {
  await events.emit("stage", { stage: "retrieve", status: "started" });
  try {
    const outcome = searchedFor(routing, turn, intent) ?? (await runRetrievalLadder(deps, turn, intent));
    log.info({ intent, rung: outcome.rung, source: outcome.source, sources: outcome.sources.length, ms: outcome.latencyMs }, "retrieval done");
    annotateSpan({
      "skillnet.retrieval.rung": outcome.rung,
      "skillnet.retrieval.source": outcome.source,
      "skillnet.retrieval.sources": outcome.sources.length,
      "skillnet.retrieval.documents": new Set(outcome.sources.map((source) => source.document)).size,
    });
    await keepRetrieval(deps.redis, turn.turnId, outcome);
    // Emitted in one tick, so they go to the turn's log in one script call (queues/events/turn-stream.ts), in this order.
    await Promise.all([
      events.emit("grounding", {
        rung: outcome.rung,
        source: outcome.source,
        sources: outcome.sources.map(({ content: _content, ...source }) => source),
      }),
      events.emit("stage", { stage: "retrieve", status: "completed", detail: outcome.rung }),
    ]);
    return outcome;
  } catch (error) {
    throw unrecoverableIfConfig(error);
  }
}
