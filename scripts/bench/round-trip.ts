/**
 * Measure 9 (issue 48): the employee's first token against the model's own, with a model whose
 * every call waits as a hosted one does. The product runs as `npm start` runs it
 * (launched-product.ts); the bench model (model-server.ts) waits `L` ms before every chat call's
 * reply or first token (the classification, PageIndex's module choice, the admin's tool rounds
 * and the answer alike), then streams a word every 20 ms. At each `L`:
 *
 * 1. one turn at a time, per route (covered question, follow-up in the same conversation,
 *    off-topic, progress, a question inside a course, the admin assistant): the employee's first
 *    token, what the product added to one model round trip, how many model round trips stood in
 *    sequence before the first token (from the model's own log of each call's arrival and reply:
 *    a call that arrived after another one's reply stands behind it), the model calls per turn by
 *    kind, and the speculative answers discarded (streams the product closed before their end);
 * 2. 32 conversations at once, each a covered question then its follow-up.
 *
 * Added to the first token = (first token on the client − POST sent) − one model round trip
 * (the shortest wait of the turn's model calls: `L` plus the model process's own scheduling).
 */
import { spawnUntilReady } from "../../launcher/embedded/child-process";
import { DEMO_IDS } from "../../db/seeds/demo-ids";
import { BenchSession, devLogin, timeAt, type TurnRecord } from "./clients";
import type { CallKind, CallRecord } from "./model-server";
import { launchProduct, type LaunchedProduct } from "./launched-product";
import type { BenchSettings } from "./settings";
import { fmt, percentile, table } from "./stats";

interface Route {
  name: string;
  questions: string[];
  /** A follow-up is the second turn of a conversation that starts with `opener`. */
  opener?: string[];
  context?: Record<string, string>;
  admin?: boolean;
}

const COVERED = [
  "How many days do customers have to return an item?",
  "Can a customer return an item without a receipt?",
  "How are refunds paid back to the customer?",
];

const ROUTES: Route[] = [
  { name: "covered question", questions: COVERED },
  {
    name: "follow-up (2nd turn)",
    opener: COVERED,
    questions: ["And what condition must the item be in?", "How many times a year can they do that?", "How long does that take?"],
  },
  { name: "off-topic", questions: ["Who won the 1998 football world cup?", "What is a good recipe for paella?", "Will it rain in Madrid tomorrow?"] },
  { name: "progress", questions: ["What is my progress and my deadlines?", "How am I doing?", "What should I review?"] },
  {
    name: "inside a course",
    context: { course_id: DEMO_IDS.courseIds.returnsEssentials },
    // One module's text holds it all (no module-choice call); no module's does (the answer starts on module 2's, holding most of it); modules 1 and 3 both do.
    questions: ["How do I count the 30 days?", "Can a customer exchange swimwear after 30 days?", "Which items can we not take back?"],
  },
  {
    name: "admin assistant",
    admin: true,
    questions: ["How many people are in the Warehouse department?", "Which courses do we have?", "Who is overdue on a course?"],
  },
];

const CHAT_KINDS: CallKind[] = ["classify", "modules", "answer", "tools", "summary", "other"];

/** One turn with the model's calls that belong to it. */
interface Measured {
  record: TurnRecord;
  calls: CallRecord[];
}

let modelUrl = "";
async function takeCalls(): Promise<CallRecord[]> {
  const response = await fetch(`${modelUrl.replace(/\/v1$/, "")}/bench/calls?reset=1`);
  return (await response.json()) as CallRecord[];
}

const chatCalls = (calls: CallRecord[]) => calls.filter((call) => call.kind !== "embedding");

/** One model round trip as this turn's calls waited it: the shortest wait of its chat calls. */
function roundTrip(calls: CallRecord[]): number {
  const waits = chatCalls(calls)
    .filter((call) => call.answered !== undefined)
    .map((call) => call.answered! - call.received);
  return waits.length > 0 ? Math.min(...waits) : Number.NaN;
}

/** The longest chain of chat calls, each arriving after the one before it replied, among those that arrived before `until`. */
function sequentialBefore(calls: CallRecord[], until: number): number {
  const before = chatCalls(calls)
    .filter((call) => call.received < until)
    .sort((a, b) => a.received - b.received);
  const depth: number[] = [];
  before.forEach((call, i) => {
    let deepest = 0;
    for (let j = 0; j < i; j++) if (before[j]!.answered !== undefined && before[j]!.answered! <= call.received + 0.5) deepest = Math.max(deepest, depth[j]!);
    depth.push(deepest + 1);
  });
  return Math.max(0, ...depth);
}

const userFirst = (m: Measured) => m.record.firstToken! - m.record.posted;
const added = (m: Measured) => userFirst(m) - roundTrip(m.calls);
const ok = (measured: Measured[]) => measured.filter((m) => !m.record.failed && m.record.firstToken !== undefined);

function routeRow(name: string, measured: Measured[]): Array<string | number> {
  const good = ok(measured);
  const kinds = CHAT_KINDS.map(
    (kind) => [kind, good.reduce((sum, m) => sum + m.calls.filter((c) => c.kind === kind).length, 0) / Math.max(1, good.length)] as const,
  )
    .filter(([, perTurn]) => perTurn > 0)
    .map(([kind, perTurn]) => `${kind} ${fmt(perTurn, 1)}`)
    .join(", ");
  const depths = good.map((m) => sequentialBefore(m.calls, m.record.firstToken!));
  const discarded = good.flatMap((m) => m.calls.filter((c) => c.kind === "answer" && c.aborted));
  return [
    name,
    `${good.length}/${measured.length}`,
    fmt(
      percentile(
        good.map((m) => roundTrip(m.calls)),
        50,
      ),
    ),
    fmt(percentile(good.map(userFirst), 50)),
    fmt(percentile(good.map(userFirst), 90)),
    `**${fmt(percentile(good.map(added), 50))}**`,
    fmt(percentile(good.map(added), 90)),
    fmt(percentile(good.map((m) => Math.min(...chatCalls(m.calls).map((c) => c.received)) - m.record.posted).filter(Number.isFinite), 50)),
    `${fmt(percentile(depths, 50), 0)} (max ${fmt(Math.max(0, ...depths), 0)})`,
    kinds,
    discarded.length > 0 ? `${discarded.length} (${discarded.reduce((sum, c) => sum + (c.tokensWritten ?? 0), 0)} tokens)` : "0",
  ];
}

const ROUTE_HEADERS = [
  "route",
  "turns",
  "one model round trip p50",
  "employee's first token p50",
  "p90",
  "added p50 (product − model)",
  "added p90",
  "POST → the first model call p50",
  "model round trips in sequence before the first token p50",
  "chat calls per turn",
  "speculative answers discarded",
];

/** Round 1 at one latency: every route, one turn at a time. */
async function oneAtATime(product: LaunchedProduct, employee: string, admin: string, turns: number): Promise<Map<string, Measured[]>> {
  const byRoute = new Map<string, Measured[]>();
  for (const route of ROUTES) {
    const measured: Measured[] = [];
    for (let i = 0; i < turns; i++) {
      const session = await BenchSession.open(product.baseUrl, route.admin ? admin : employee);
      try {
        const question = route.questions[i % route.questions.length]!;
        if (route.opener) await session.turn(route.opener[i % route.opener.length]);
        await takeCalls();
        const record = await session.turn(question, 60_000, {
          ...(route.context ? { context: route.context } : {}),
          ...(route.admin ? { path: "/api/v1/chat/admin" } : {}),
        });
        // Calls of this turn only: the product's summary refresh may follow `done`, it is not before the first token.
        const calls = (await takeCalls()).filter((call) => call.received >= record.posted && call.received <= (record.done ?? Number.POSITIVE_INFINITY));
        measured.push({ record, calls });
      } finally {
        session.close();
      }
    }
    byRoute.set(route.name, measured);
  }
  return byRoute;
}

/** Round 2 at one latency: `sessions` conversations at once, each a covered question then its follow-up. */
async function atOnce(
  product: LaunchedProduct,
  employee: string,
  sessions: number,
): Promise<{ covered: TurnRecord[]; followUps: TurnRecord[]; calls: CallRecord[] }> {
  const opened = await Promise.all(Array.from({ length: sessions }, () => BenchSession.open(product.baseUrl, employee)));
  await takeCalls();
  const covered: TurnRecord[] = [];
  const followUps: TurnRecord[] = [];
  try {
    await Promise.all(
      opened.map(async (session, i) => {
        covered.push(await session.turn(COVERED[i % COVERED.length], 120_000));
        followUps.push(await session.turn(ROUTES[1]!.questions[i % 3]!, 120_000));
      }),
    );
  } finally {
    for (const session of opened) session.close();
  }
  return { covered, followUps, calls: await takeCalls() };
}

/** Why turns of a route are not counted: an error code, a timeout, or no token before `done`. */
function notAnswered(byRoute: Map<string, Measured[]>): string[] {
  const lines = [...byRoute].flatMap(([name, measured]) => {
    const reasons = measured.filter((m) => m.record.failed || m.record.firstToken === undefined).map((m) => m.record.failed ?? "done without a token");
    return reasons.length > 0 ? [`- ${name}: ${reasons.length} not counted (${[...new Set(reasons)].join(", ")})`] : [];
  });
  return lines.length > 0 ? [...lines, ""] : [];
}

/** Added to the first token from the stamps of the answer's first token (tutor answers only). */
const stampedAdded = (r: TurnRecord) => r.firstToken! - r.posted - (r.modelFirstToken!.written - r.modelFirstToken!.received);

function atOnceRows(label: string, records: TurnRecord[]): Array<string | number> {
  const good = records.filter((r) => !r.failed && r.firstToken !== undefined && r.modelFirstToken);
  const first = good.map((r) => r.firstToken! - r.posted);
  const addedMs = good.map(stampedAdded);
  // Where the added time went: waiting for a worker's slot, the worker's own work up to the answer's request (any classification included), delivery.
  const queued = good.map((r) => timeAt(r, "classify:started") - r.accepted).filter(Number.isFinite);
  const working = good.map((r) => r.modelFirstToken!.received - timeAt(r, "classify:started")).filter(Number.isFinite);
  const delivered = good.map((r) => r.firstToken! - r.modelFirstToken!.written);
  return [
    label,
    `${good.length}/${records.length}`,
    fmt(percentile(first, 50)),
    fmt(percentile(first, 90)),
    `**${fmt(percentile(addedMs, 50))}**`,
    fmt(percentile(addedMs, 90)),
    fmt(percentile(queued, 50)),
    fmt(percentile(working, 50)),
    fmt(percentile(delivered, 50)),
  ];
}

export const roundTripModule = {
  name: "round-trip",
  title: "9. The model's round trips before the first token (issue 48)",
  async run(settings: BenchSettings): Promise<string> {
    const { latenciesMs, turnsPerRoute, sessionsAtOnce } = settings.roundTrip;
    const model = await spawnUntilReady(process.execPath, ["--import", "tsx", "scripts/bench/model-server.ts"], {
      name: "model",
      readyPattern: /^READY (\S+)/,
      timeoutMs: 30_000,
    });
    modelUrl = model.match[1]!;
    const product = await launchProduct(modelUrl, model.child);
    const sections: string[] = [];
    try {
      const employee = await devLogin(product.baseUrl);
      const admin = await devLogin(product.baseUrl, "admin@example.com");
      // Warm-up: the first turns load the models' code paths and the term caches.
      await product.setModel({ tokens: 20, intervalMs: 0, firstTokenMs: 0, callMs: 0 });
      await oneAtATime(product, employee, admin, 1);
      for (const latency of latenciesMs) {
        await product.setModel({ tokens: 20, intervalMs: 20, firstTokenMs: latency, callMs: latency, embeddingMs: 0 });
        const byRoute = await oneAtATime(product, employee, admin, turnsPerRoute);
        const concurrent = await atOnce(product, employee, sessionsAtOnce);
        const discarded = concurrent.calls.filter((c) => c.kind === "answer" && c.aborted).length;
        const concurrentTurns = concurrent.covered.length + concurrent.followUps.length;
        const perKind = CHAT_KINDS.map((kind) => [kind, concurrent.calls.filter((c) => c.kind === kind).length] as const)
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => `${kind} ${fmt(n / Math.max(1, concurrentTurns), 2)}`)
          .join(", ");
        const goal = (route: string) => {
          const values = ok(byRoute.get(route) ?? []).map(added);
          const p50 = percentile(values, 50);
          return `${route} ${fmt(p50)} ms — ${p50 <= 50 ? "**met**" : "**missed**"}`;
        };
        sections.push(
          [
            `### Model at ${latency} ms per call`,
            "",
            `Every chat call waits ${latency} ms before its reply (or its first token), then an answer streams 20 words, one every 20 ms; embeddings answer at once. One turn at a time, ${turnsPerRoute} per route, each in a fresh conversation (the follow-up is the conversation's second turn).`,
            "",
            table(
              ROUTE_HEADERS,
              [...byRoute].map(([name, measured]) => routeRow(name, measured)),
            ),
            "",
            ...notAnswered(byRoute),
            `${sessionsAtOnce} conversations at once, each a covered question then its follow-up (chat calls per turn: ${perKind}; ${discarded} speculative answers discarded):`,
            "",
            table(
              [
                "turns",
                "answered",
                "employee's first token p50",
                "p90",
                "added p50 (product − model)",
                "added p90",
                "202 → a worker starts it p50",
                "worker start → the model has the answer's request p50",
                "model's first write → client p50",
              ],
              [atOnceRows("covered questions", concurrent.covered), atOnceRows("follow-ups", concurrent.followUps)],
            ),
            "",
            `Goal, one at a time — added to the first token ≤ 50 ms p50: ${goal("covered question")}; ${goal("follow-up (2nd turn)")}.`,
          ].join("\n"),
        );
      }
    } finally {
      await product.stop();
      await model.child.stop(5_000).catch(() => undefined);
    }
    return sections.join("\n\n");
  },
};
