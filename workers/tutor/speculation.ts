/**
 * An answer started before the turn's route is settled. A question the heuristics and the
 * retrieval evidence leave open waits for the model's classification; the answer on the likeliest
 * route starts at the same time, so the model's two round trips overlap instead of adding up
 * (issue 48, docs/architecture.md "A turn's timeline"). Everything the answer emits (tokens, a
 * step-down's `grounding_update`) is held until the classification arrives: when it agrees the
 * held events go out in order, right after the stages that settled the route, and the stream
 * carries on; when it disagrees the stream is aborted and its events dropped, so the client never
 * sees a token of a discarded answer, and the turn generates again on the right route.
 */
import type { Logger } from "pino";
import type { TurnEventName, TurnEventPayloads } from "../../queues/events/contract";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "../turns/turn-emitter";
import { StreamCancelled } from "../llm/stream-watch";
import type { KeptAnswer } from "./checkpoints";
import { generate } from "./generation";
import { tutorSystemPrompt } from "./prompts";
import type { RetrievalOutcome } from "./retrieval/types";
import type { TurnContext } from "./turn-context";

type HeldEvent = { [E in TurnEventName]: { event: E; payload: TurnEventPayloads[E] } }[TurnEventName];

/** An emitter that holds events until it is opened (then sends them, in order, and passes the rest through) or dropped. */
export class HeldEmitter implements TurnEmitter {
  private held: HeldEvent[] = [];
  private state: "holding" | "open" | "dropped" = "holding";
  /** Token events given while holding: what a discarded answer had streamed. */
  heldTokens = 0;

  constructor(private readonly target: TurnEmitter) {}

  emit<E extends TurnEventName>(event: E, payload: TurnEventPayloads[E]): Promise<number> {
    if (this.state === "open") return this.target.emit(event, payload);
    if (this.state === "holding") {
      this.held.push({ event, payload } as HeldEvent);
      if (event === "token") this.heldTokens += 1;
    }
    return Promise.resolve(0);
  }

  /** Sends what was held, in order (what is emitted meanwhile queues behind it), then passes events through. */
  async open(): Promise<void> {
    while (this.state === "holding" && this.held.length > 0) {
      const batch = this.held.splice(0);
      // Consecutive tokens go as one: the client appends them, and one append is one Redis write.
      for (const next of joinTokens(batch)) await this.target.emit(next.event, next.payload as never);
    }
    if (this.state === "holding") this.state = "open";
  }

  drop(): void {
    this.state = "dropped";
    this.held = [];
  }
}

function joinTokens(events: HeldEvent[]): HeldEvent[] {
  const joined: HeldEvent[] = [];
  for (const next of events) {
    const last = joined.at(-1);
    // Thinking (a reasoning model's `reasoning` events) joins the same way.
    if ((next.event === "token" || next.event === "reasoning") && last?.event === next.event)
      joined[joined.length - 1] = { event: next.event, payload: { content: last.payload.content + next.payload.content } };
    else joined.push(next);
  }
  return joined;
}

/** What a speculative answer came to: its answer, or the error its stream ended with. */
type Outcome = { answer: KeptAnswer } | { error: unknown };

export class SpeculativeAnswer {
  private readonly held: HeldEmitter;
  private readonly abort = new AbortController();
  private readonly outcome: Promise<Outcome>;

  private constructor(
    private readonly turn: TurnContext,
    readonly retrieval: RetrievalOutcome,
    start: (events: TurnEmitter, abort: AbortSignal) => Promise<KeptAnswer>,
    events: TurnEmitter,
  ) {
    this.held = new HeldEmitter(events);
    // Settled at once (never an unhandled rejection): confirm() rethrows, discard() forgets.
    this.outcome = start(this.held, this.abort.signal).then(
      (answer) => ({ answer }),
      (error: unknown) => ({ error }),
    );
  }

  /** Starts the answer on `retrieval` with its events held. */
  static start(deps: WorkerDeps, turn: TurnContext, retrieval: RetrievalOutcome, events: TurnEmitter, log: Logger): SpeculativeAnswer {
    return new SpeculativeAnswer(turn, retrieval, (held, abort) => generate(deps, turn, retrieval, held, log, abort), events);
  }

  /** Whether the answer for `settled` would be this one: the same instructions and the same sources. */
  answers(settled: RetrievalOutcome, turn: Pick<TurnContext, "courseId" | "lessonId">): boolean {
    const prompt = (retrieval: RetrievalOutcome) => tutorSystemPrompt({ ...this.turn, rung: retrieval.rung, intent: retrieval.intent });
    return (
      // The access re-check may have dropped the course (an unenrolment meanwhile): an answer framed by it is not the turn's.
      turn.courseId === this.turn.courseId &&
      turn.lessonId === this.turn.lessonId &&
      settled.rung === this.retrieval.rung &&
      JSON.stringify(settled.sources) === JSON.stringify(this.retrieval.sources) &&
      prompt(settled) === prompt(this.retrieval)
    );
  }

  /**
   * The answer is the turn's: what it held goes out now, the rest as it streams; resolves with
   * the finished answer (or throws what its stream threw, as a generation that was never held would).
   */
  async confirm(): Promise<KeptAnswer> {
    const early = await Promise.race([this.outcome, Promise.resolve(undefined)]);
    // Stopped by the user before the verdict let it out: what it held was never seen, and stays unsent.
    if (early && "error" in early && early.error instanceof StreamCancelled) {
      this.discard();
      throw new StreamCancelled("");
    }
    try {
      await this.held.open();
    } catch (error) {
      // The flush failed (the turn's log refused a write): the stream must not run on unseen and paid for.
      this.discard();
      throw error;
    }
    const outcome = await this.outcome;
    if ("answer" in outcome) return outcome.answer;
    throw outcome.error;
  }

  /** The answer is not the turn's: its stream is aborted and nothing it emitted is sent. Returns the tokens it had streamed. */
  discard(): number {
    this.held.drop();
    this.abort.abort();
    // An abort ends the stream with StreamCancelled; any other end of a discarded stream is moot too.
    void this.outcome;
    return this.held.heldTokens;
  }
}
