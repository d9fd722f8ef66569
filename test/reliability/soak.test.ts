/**
 * Soak: 200 concurrent sessions on loopback for about half a minute against the real server, workers
 * and socket clients, the model being the scripted server with a small delay per token. Each
 * session posts turn after turn. At the end: zero lost turns (every accepted turn ended with
 * `done`), zero duplicated messages (one question and one answer per turn, the answer equal to
 * the streamed text) and zero seq gaps (each turn's events numbered 1..n exactly once).
 * SOAK_SESSIONS and SOAK_SECONDS change the size for a longer run by hand.
 */
import { expect } from "chai";
import { api, type ReceivedEvent } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { freshEmployee, removeFreshEmployees, scriptedResponder, type Learner } from "../workers/tutor/helpers";
import { eventsOfTurn, finalText } from "./helpers";

const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 200);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 25);
const ANSWER = "Returns are accepted within thirty days of purchase with the receipt, and refunds go back to the original payment method.";
/**
 * A turn still open when no turn at all has ended for this long counts as lost: progress, not a
 * fixed deadline, so a slow (shared) machine makes the run longer, never a false loss.
 */
const STALL_MS = 30_000;

interface TurnRecord {
  sessionId: string;
  turnId: string;
  postedAt: number;
  endedAt?: number;
}

interface SessionRun {
  learner: Learner;
  sessionId?: string;
  turns: TurnRecord[];
  refused: number;
}

const ended = (events: ReceivedEvent[]): boolean => events.some((e) => e.event === "done" || (e.event === "error" && !e.payload.willRetry));

/** When any turn last ended. */
const progress = { lastEndAt: Date.now() };

async function waitUntilEnded(learner: Learner, turnId: string): Promise<boolean> {
  while (Date.now() - progress.lastEndAt < STALL_MS) {
    if (ended(eventsOfTurn(learner.events, turnId))) {
      progress.lastEndAt = Date.now();
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One session, like a person typing: posts a turn, waits for its end, reads for a moment, and again, until the time is up. */
async function runSession(stack: Stack, run: SessionRun, stopPostingAt: number): Promise<void> {
  let n = 0;
  await sleep(Math.random() * 5_000);
  while (Date.now() < stopPostingAt) {
    n++;
    const context = run.sessionId ? { session_id: run.sessionId } : {};
    const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: run.learner.token,
      body: { message: `Question ${n}: how do returns work?`, context },
    });
    if (posted.status === 429) {
      run.refused++;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      continue;
    }
    expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
    const turn: TurnRecord = { sessionId: posted.body.session_id, turnId: posted.body.turn_id, postedAt: Date.now() };
    run.turns.push(turn);
    if (!run.sessionId) {
      run.sessionId = turn.sessionId;
      // Under this load a join may queue behind the workers' queries: a generous ack timeout.
      expect(await run.learner.socket.timeout(60_000).emitWithAck("join", { sessionId: turn.sessionId })).to.include({ ok: true });
    }
    if (!(await waitUntilEnded(run.learner, turn.turnId))) return;
    turn.endedAt = Date.now();
    await sleep(2_000 + Math.random() * 2_000);
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

describe(`soak: ${SESSIONS} concurrent sessions for ${SECONDS} s`, function () {
  this.timeout((SECONDS + 240) * 1000);
  let stack: Stack;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
  });
  after(async () => {
    stack.llm.setResponder(null);
    stack.llm.reset();
    await removeFreshEmployees(stack);
  });

  it("loses no turn, duplicates no message and leaves no seq gap", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    stack.llm.setTokenDelay(5);
    const runs: SessionRun[] = [];
    for (let i = 0; i < SESSIONS; i += 25) {
      const batch = await Promise.all(Array.from({ length: Math.min(25, SESSIONS - i) }, () => freshEmployee(stack)));
      runs.push(...batch.map((learner) => ({ learner, turns: [], refused: 0 })));
    }
    const started = Date.now();
    progress.lastEndAt = started;
    const stopPostingAt = started + SECONDS * 1000;
    await Promise.all(runs.map((run) => runSession(stack, run, stopPostingAt)));
    const wallMs = Date.now() - started;

    const turns = runs.flatMap((run) => run.turns.map((turn) => ({ ...turn, run })));
    const lost = turns.filter((turn) => !turn.endedAt);
    const latencies = turns.filter((turn) => turn.endedAt).map((turn) => turn.endedAt! - turn.postedAt);
    console.log(
      `      soak: ${runs.length} sessions, ${turns.length} turns in ${Math.round(wallMs / 1000)} s (${(turns.length / (wallMs / 1000)).toFixed(1)} turns/s); ` +
        `turn time p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${percentile(latencies, 100)} ms; 429s ${runs.reduce((sum, run) => sum + run.refused, 0)}`,
    );
    expect(turns.length).to.be.at.least(SESSIONS, "every session completed at least one turn");
    expect(
      lost.map((turn) => turn.turnId),
      "lost turns",
    ).to.deep.equal([]);

    const errors = turns.flatMap((turn) => eventsOfTurn(turn.run.learner.events, turn.turnId).filter((e) => e.event === "error"));
    expect(
      errors.map((e) => e.payload),
      "errors",
    ).to.deep.equal([]);

    // Each turn's events, as one client saw them: seq 1..n, each once.
    const gaps = turns.filter((turn) => {
      const seqs = eventsOfTurn(turn.run.learner.events, turn.turnId).map((e) => e.payload.seq as number);
      return seqs.some((seq, i) => seq !== i + 1);
    });
    expect(
      gaps.map((turn) => turn.turnId),
      "turns with seq gaps or repeats",
    ).to.deep.equal([]);

    const db = stack.server.deps.db;
    const rows = (await db("chat_messages")
      .whereIn(
        "turn_id",
        turns.map((turn) => turn.turnId),
      )
      .select("turn_id", "role", "status", "content")) as Array<{ turn_id: string; role: string; status: string; content: string }>;
    const byTurn = new Map<string, typeof rows>();
    for (const row of rows) byTurn.set(row.turn_id, [...(byTurn.get(row.turn_id) ?? []), row]);
    const wrong = turns.filter((turn) => {
      const stored = byTurn.get(turn.turnId) ?? [];
      const answers = stored.filter((row) => row.role === "assistant");
      const questions = stored.filter((row) => row.role === "user");
      return (
        questions.length !== 1 ||
        answers.length !== 1 ||
        answers[0]!.status !== "complete" ||
        answers[0]!.content !== finalText(eventsOfTurn(turn.run.learner.events, turn.turnId))
      );
    });
    expect(
      wrong.map((turn) => ({ turnId: turn.turnId, rows: byTurn.get(turn.turnId)?.map((row) => `${row.role}:${row.status}`) })),
      "turns without exactly one question and one matching answer",
    ).to.deep.equal([]);
  });
});
