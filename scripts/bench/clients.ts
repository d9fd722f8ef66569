/**
 * Benchmark clients that speak to the server like a browser: dev-login, POST /api/v1/chat,
 * a socket.io-client per session. Every event is stamped on arrival with the wall clock, and the
 * bench model's ` @<epoch ms>` token stamps turn into per-token delivery lag.
 */
import { io, type Socket } from "socket.io-client";
import { wallClockMs } from "./stats";

export const QUESTION = "How many days do I have to return an item for a refund?";

export async function devLogin(baseUrl: string, email = "employee@example.com"): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (!response.ok) throw new Error(`dev-login answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

export async function connectSocket(baseUrl: string, token: string): Promise<Socket> {
  const socket = io(baseUrl, { path: "/socket.io", auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/** What one turn looked like from the client's side; times are wall-clock ms. */
export interface TurnRecord {
  turnId: string;
  posted: number;
  accepted: number;
  stages: Record<string, number>;
  firstToken?: number;
  done?: number;
  /** Delivery lag of every token stamped by the bench model. */
  tokenLags: number[];
  tokens: number;
  /** Every `seq` once, in order, from 1. */
  seqIntact: boolean;
  /** The bench model's first token: when it got the request and when it wrote the token (model-server.ts `firstTokenMs`). */
  modelFirstToken?: { received: number; written: number };
  failed?: string;
}

/**
 * When the client saw a turn reach `point` (wall-clock ms): `posted`, `accepted` (the 202), `token`
 * (the first), `done`, `model` (the bench model had the request), or a stage event as
 * `stage:status`; NaN for a point the turn never reached.
 */
export function timeAt(record: TurnRecord, point: string): number {
  const at =
    point === "posted"
      ? record.posted
      : point === "accepted"
        ? record.accepted
        : point === "token"
          ? record.firstToken
          : point === "done"
            ? record.done
            : point === "model"
              ? record.modelFirstToken?.received
              : record.stages[point];
  return at ?? Number.NaN;
}

const STAMP = /@(\d+\.\d+)/g;
const FIRST_STAMP = /@(\d+\.\d+)~(\d+\.\d+)/;

/** The fields of a turn event the bench reads. */
interface EventPayload {
  turnId?: string;
  seq: number;
  stage?: string;
  status?: string;
  content?: string;
  code?: string;
  willRetry?: boolean;
}

/** One chat session on its own socket; turns run one after another. */
export class BenchSession {
  private current?: { record: TurnRecord; seqs: number[]; resolve: () => void };
  private constructor(
    readonly baseUrl: string,
    readonly token: string,
    readonly socket: Socket,
    public sessionId: string | null,
  ) {
    socket.onAny((event: string, payload: EventPayload) => this.onEvent(event, payload));
  }

  static async open(baseUrl: string, token: string): Promise<BenchSession> {
    return new BenchSession(baseUrl, token, await connectSocket(baseUrl, token), null);
  }

  /** Posts one message and resolves when the turn ends (done or a final error); `path` picks the assistant (the admin's: `/api/v1/chat/admin`). */
  async turn(
    message = QUESTION,
    timeoutMs = 120_000,
    { context, path = "/api/v1/chat" }: { context?: Record<string, string>; path?: string } = {},
  ): Promise<TurnRecord> {
    const record: TurnRecord = { turnId: "", posted: wallClockMs(), accepted: 0, stages: {}, tokenLags: [], tokens: 0, seqIntact: true };
    const seqs: number[] = [];
    const ended = new Promise<void>((resolve) => (this.current = { record, seqs, resolve }));
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.token}` },
      body: JSON.stringify({ message, ...(this.sessionId ? { session_id: this.sessionId } : {}), ...(context ? { context } : {}) }),
    });
    const body = (await response.json()) as { session_id: string; turn_id: string };
    if (response.status !== 202) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(body)}`);
    record.accepted = wallClockMs();
    record.turnId = body.turn_id;
    if (this.sessionId !== body.session_id) {
      // A new session: join it (the server replays whatever the turn already emitted).
      this.sessionId = body.session_id;
      const ack = (await this.socket.timeout(30_000).emitWithAck("join", { sessionId: this.sessionId })) as { ok: boolean };
      if (!ack.ok) throw new Error(`join refused: ${JSON.stringify(ack)}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        record.failed = "timeout";
        resolve();
      }, timeoutMs);
    });
    await Promise.race([ended, timedOut]);
    clearTimeout(timer);
    this.current = undefined;
    record.seqIntact &&= seqs.every((seq, index) => seq === index + 1);
    return record;
  }

  private onEvent(event: string, payload: EventPayload | undefined): void {
    const at = wallClockMs();
    const current = this.current;
    if (!current || !payload || (current.record.turnId && payload.turnId !== current.record.turnId)) return;
    const { record, seqs } = current;
    // Events that beat the 202 to us: adopt the turn id from the first one.
    if (!record.turnId) record.turnId = payload.turnId ?? "";
    seqs.push(payload.seq);
    if (event === "stage") record.stages[`${payload.stage}:${payload.status}`] ??= at;
    if (event === "token") {
      if (record.firstToken === undefined) {
        record.firstToken = at;
        const first = String(payload.content).match(FIRST_STAMP);
        if (first) record.modelFirstToken = { written: Number(first[1]), received: Number(first[2]) };
      }
      for (const match of String(payload.content).matchAll(STAMP)) {
        record.tokenLags.push(at - Number(match[1]));
        record.tokens += 1;
      }
    }
    if (event === "done" || (event === "error" && !payload.willRetry)) {
      if (event === "error") record.failed = payload.code;
      record.done = at;
      current.resolve();
    }
  }

  close(): void {
    this.socket.disconnect();
  }
}

/** Opens `count` sessions (round-robin over the servers), each with one finished warm-up turn, `parallel` at a time. */
export async function openSessions(baseUrls: string[], token: string, count: number, parallel = 20): Promise<BenchSession[]> {
  const sessions: BenchSession[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const index = next++;
        const session = await BenchSession.open(baseUrls[index % baseUrls.length]!, token);
        await session.turn("hola");
        sessions.push(session);
      }
    }),
  );
  return sessions;
}
