/**
 * Scale-out on one machine: two server processes and two worker processes sharing one Redis
 * and one Postgres. A turn posted on one node streams to a socket on the other; a client that
 * moves to the other node mid-answer resumes exactly (join with lastSeq); and a server stopped
 * with SIGTERM sends its sockets away with `transport close`, on which a socket.io client
 * reconnects by itself — here through a small TCP load balancer, to the node still running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createConnection, createServer, type Server, type Socket as TcpSocket } from "node:net";
import { expect } from "chai";
import { io, type Socket } from "socket.io-client";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd, type ReceivedEvent } from "../harness/client";
import { useStack, type Stack } from "../support/stack";
import { issueRefreshToken } from "../../db/queries/refresh-tokens";
import { REFRESH_COOKIE } from "../../server/auth/sso/session";
import { scriptedResponder } from "../workers/tutor/helpers";

const TUTOR_QUEUES = ["tutor-generate"];
const ANSWER = Array.from({ length: 30 }, (_, i) => `Point ${i + 1} of the returns policy matters here.`).join(" ");

interface Node {
  process: ChildProcess;
  url: string;
}

describe("two servers and two workers on one machine", function () {
  this.timeout(180_000);
  let stack: Stack;
  let token: string;
  const processes: ChildProcess[] = [];
  const sockets: Socket[] = [];
  let servers: Node[];

  before(async function () {
    this.timeout(180_000);
    stack = await useStack();
    // The in-process stack's tutor workers step aside: only the two worker processes run turns.
    await Promise.all(stack.workers.workers.filter((w) => TUTOR_QUEUES.includes(w.name)).map((w) => w.pause()));
    const base = { ...process.env, ...stack.env, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent" };
    const [a, b] = await Promise.all([
      startNode("server/main.ts", { ...base, PORT: "0", HOST: "127.0.0.1" }, /^READY server (\S+)/),
      startNode("server/main.ts", { ...base, PORT: "0", HOST: "127.0.0.1" }, /^READY server (\S+)/),
      startNode("workers/main.ts", { ...base, WORKER_QUEUES: TUTOR_QUEUES.join(",") }, /^READY workers/),
      startNode("workers/main.ts", { ...base, WORKER_QUEUES: TUTOR_QUEUES.join(",") }, /^READY workers/),
    ]);
    servers = [a!, b!];
    ({ token } = await login(servers[0]!.url, "employee@example.com"));
  });

  after(async () => {
    for (const socket of sockets) socket.disconnect();
    for (const child of processes) if (child.exitCode === null) child.kill("SIGKILL");
    stack.llm.setResponder(null);
    stack.llm.reset();
    await Promise.all(stack.workers.workers.filter((w) => TUTOR_QUEUES.includes(w.name)).map((w) => w.resume()));
  });

  async function startNode(script: string, env: Record<string, string | undefined>, ready: RegExp): Promise<Node> {
    const child = spawn(process.execPath, ["--import", "tsx", script], { env, stdio: ["ignore", "pipe", "inherit"] });
    processes.push(child);
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const match = await waitFor(() => output.match(ready) ?? (child.exitCode !== null ? ["exited"] : null), 90_000, `${script} READY`);
    expect(child.exitCode, `${script} exited early`).to.equal(null);
    return { process: child, url: match[1] ?? "" };
  }

  async function post(server: Node, message: string): Promise<{ sessionId: string; turnId: string }> {
    const posted = await api(server.url, "POST", "/api/v1/chat", { token, body: { message } });
    expect(posted.status).to.equal(202);
    return { sessionId: posted.body.session_id, turnId: posted.body.turn_id };
  }

  const ofTurn = (events: ReceivedEvent[], turnId: string) => events.filter((e) => e.payload?.turnId === turnId);
  const seqsOf = (events: ReceivedEvent[]) => events.map((e) => e.payload.seq as number);
  const textOf = (events: ReceivedEvent[]) =>
    events
      .filter((e) => e.event === "token")
      .map((e) => e.payload.content)
      .join("");

  async function storedAnswer(turnId: string): Promise<string[]> {
    const rows = await stack.server.deps.db("chat_messages").where({ turn_id: turnId, role: "assistant" });
    return rows.map((row: { content: string }) => row.content);
  }

  it("delivers a turn posted on server A to a socket connected to server B", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    const onB = await connect(servers[1]!.url, token);
    sockets.push(onB);
    const received = recordEvents(onB);
    const { sessionId, turnId } = await post(servers[0]!, "What does the returns policy say?");
    expect(await join(onB, { sessionId })).to.include({ ok: true });

    const events = await waitForTurnEnd(received, turnId, 60_000);
    expect(events.at(-1)!.event).to.equal("done");
    expect(seqsOf(events)).to.deep.equal(events.map((_, i) => i + 1));
    expect(await storedAnswer(turnId)).to.deep.equal([textOf(events)]);
  });

  it("resumes exactly on server B a turn the client was following on server A", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    stack.llm.setTokenDelay(30);
    const onA = await connect(servers[0]!.url, token);
    sockets.push(onA);
    const before = recordEvents(onA);
    const { sessionId, turnId } = await post(servers[0]!, "Explain the returns policy point by point");
    expect(await join(onA, { sessionId })).to.include({ ok: true });
    await waitFor(() => ofTurn(before, turnId).filter((e) => e.event === "token").length >= 5, 30_000, "tokens on A");
    onA.disconnect();
    const lastSeq = Math.max(...seqsOf(ofTurn(before, turnId)));

    const onB = await connect(servers[1]!.url, token);
    sockets.push(onB);
    const after = recordEvents(onB);
    expect(await join(onB, { sessionId, turnId, lastSeq })).to.include({ ok: true });
    const rest = await waitForTurnEnd(after, turnId, 60_000);

    const all = [...ofTurn(before, turnId), ...rest];
    expect(seqsOf(all)).to.deep.equal(
      all.map((_, i) => i + 1),
      "no gap and no duplicate across the move",
    );
    expect(rest[0]!.payload.seq).to.equal(lastSeq + 1);
    expect(await storedAnswer(turnId)).to.deep.equal([textOf(all)]);
    stack.llm.setTokenDelay(0);
  });

  /** A socket on `server` with what it was told when cut, and when it closed (epoch ms). */
  async function watched(server: Node, accessToken: string): Promise<{ socket: Socket; told: Array<{ code: string }>; closedAt: () => number | undefined }> {
    const socket = await connect(server.url, accessToken);
    sockets.push(socket);
    const told: Array<{ code: string }> = [];
    let closedAt: number | undefined;
    socket.on("auth_expired", (reason: { code: string }) => told.push(reason));
    socket.on("disconnect", () => (closedAt ??= Date.now()));
    return { socket, told, closedAt: () => closedAt };
  }

  it("cuts a deactivated person's sockets on both servers within a second, and no one else's", async () => {
    const db = stack.server.deps.db;
    const [leaver] = await db("users")
      .insert({ org_id: stack.demo.orgId, email: `leaver-${Date.now()}@example.com`, name: "Lee Leaver", role: "employee", locale: "en" })
      .returning(["id", "email"]);
    const admin = await db("users").where({ id: stack.demo.adminId }).first("email");
    const [leaverToken, adminToken] = [(await login(servers[0]!.url, leaver.email)).token, (await login(servers[0]!.url, admin.email)).token];
    const onA = await watched(servers[0]!, leaverToken);
    const onB = await watched(servers[1]!, leaverToken);
    const colleague = await watched(servers[0]!, token);

    // Deactivated through server B; the socket on A hears of it through Redis, not at the minute's re-check.
    const deactivated = await api(servers[1]!.url, "PATCH", `/api/v1/admin/people/${leaver.id}`, { token: adminToken, body: { is_active: false } });
    expect(deactivated.status, JSON.stringify(deactivated.body)).to.equal(200);
    const answeredAt = Date.now();
    await waitFor(() => onA.closedAt() !== undefined && onB.closedAt() !== undefined, 5_000, "both sockets cut");
    for (const cut of [onA, onB]) {
      expect(cut.told.map((reason) => reason.code)).to.deep.equal(["ACCOUNT_INACTIVE"]);
      expect(cut.closedAt()! - answeredAt, "cut within a second of the deactivation").to.be.below(1_000);
    }
    expect(colleague.socket.connected, "a colleague's socket stays").to.equal(true);
    const reconnect = await connect(servers[0]!.url, leaverToken).then(
      () => "connected",
      (error: { data?: { code?: string } }) => error.data?.code,
    );
    expect(reconnect, "nor can the leaver connect again").to.equal("UNAUTHORIZED");
  });

  it("ends only the sockets of a browser sign-in that is signed out or whose refresh token is reused, on both servers", async () => {
    const db = stack.server.deps.db;
    const employee = await db("users").where({ email: "employee@example.com", org_id: stack.demo.orgId }).first("id");
    const grant = { orgId: stack.demo.orgId, userId: employee.id, providerId: null, ttlSeconds: 3_600 };
    /** POST to a cookie route of `server` as the page does; the rotated cookie comes back in Set-Cookie. */
    const cookiePost = async (server: Node, path: string, cookie: string) => {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { cookie: `${REFRESH_COOKIE}=${cookie}`, "x-requested-with": "skillnet", "content-type": "application/json" },
        body: JSON.stringify({ return_to: "/" }),
      });
      const rotated = /skillnet_refresh=([^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
      return { status: response.status, body: (await response.json()) as { access_token?: string }, rotated };
    };
    // Two sign-ins of the same person (two browsers), each refreshed once for an access token.
    const first = await issueRefreshToken(db, grant);
    const second = await issueRefreshToken(db, grant);
    const firstRefresh = await cookiePost(servers[0]!, "/api/v1/auth/refresh", first.token);
    const secondRefresh = await cookiePost(servers[1]!, "/api/v1/auth/refresh", second.token);
    expect([firstRefresh.status, secondRefresh.status]).to.deep.equal([200, 200]);
    const firstOnA = await watched(servers[0]!, firstRefresh.body.access_token!);
    const firstOnB = await watched(servers[1]!, firstRefresh.body.access_token!);
    const secondOnA = await watched(servers[0]!, secondRefresh.body.access_token!);
    const secondOnB = await watched(servers[1]!, secondRefresh.body.access_token!);
    const devLogin = await watched(servers[1]!, token);

    // The first sign-in's cookie, spent a minute ago (past the grace two tabs refreshing at once get),
    // presented again — a stolen copy: its family is revoked, and its sockets go.
    await db("refresh_tokens")
      .where({ family_id: first.familyId })
      .whereNotNull("used_at")
      .update({ used_at: db.raw("now() - interval '1 minute'") });
    expect((await cookiePost(servers[1]!, "/api/v1/auth/refresh", first.token)).status).to.equal(401);
    const reusedAt = Date.now();
    await waitFor(() => firstOnA.closedAt() !== undefined && firstOnB.closedAt() !== undefined, 5_000, "the first sign-in's sockets cut");
    for (const cut of [firstOnA, firstOnB]) {
      expect(cut.told.map((reason) => reason.code)).to.deep.equal(["SIGNED_OUT"]);
      expect(cut.closedAt()! - reusedAt).to.be.below(1_000);
    }
    expect(
      [secondOnA, secondOnB, devLogin].map((kept) => kept.socket.connected),
      "other sign-ins keep theirs",
    ).to.deep.equal([true, true, true]);

    // The second signs out on server A: its socket on B goes too; the person's dev-login socket stays.
    expect((await cookiePost(servers[0]!, "/api/v1/auth/sign-out", secondRefresh.rotated!)).status).to.equal(200);
    const signedOutAt = Date.now();
    await waitFor(() => secondOnA.closedAt() !== undefined && secondOnB.closedAt() !== undefined, 5_000, "the second sign-in's sockets cut");
    for (const cut of [secondOnA, secondOnB]) expect(cut.closedAt()! - signedOutAt).to.be.below(1_000);
    expect(devLogin.socket.connected).to.equal(true);
  });

  it("when server A is stopped with SIGTERM, its client reconnects through the load balancer to B and resumes exactly", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    stack.llm.setTokenDelay(30);
    const [a, b] = servers as [Node, Node];
    const balancer = await startBalancer([a.url, b.url]);
    try {
      // A browser-like client: reconnects by itself, and rejoins with the last seq it saw.
      const client = io(balancer.url, {
        path: "/socket.io",
        auth: { token },
        transports: ["websocket"],
        reconnectionDelay: 100,
        reconnectionDelayMax: 500,
        forceNew: true,
      });
      sockets.push(client);
      const received = recordEvents(client);
      const disconnects: string[] = [];
      client.on("disconnect", (reason) => disconnects.push(reason));
      let followed: { sessionId: string; turnId: string } | undefined;
      let connects = 0;
      client.on("connect", () => {
        connects += 1;
        if (!followed) return;
        const seen = seqsOf(ofTurn(received, followed.turnId));
        void join(client, { ...followed, lastSeq: seen.length ? Math.max(...seen) : 0 });
      });
      await waitFor(() => connects === 1, 10_000, "first connection");
      expect(balancer.routed).to.deep.equal([a.url]);

      followed = await post(b, "Go through the returns policy one point at a time");
      expect(await join(client, { sessionId: followed.sessionId })).to.include({ ok: true });
      await waitFor(() => ofTurn(received, followed!.turnId).filter((e) => e.event === "token").length >= 5, 30_000, "tokens through A");

      const exited = once(a.process, "exit");
      const signalledAt = Date.now();
      a.process.kill("SIGTERM");
      const [code] = await exited;
      const stoppedInMs = Date.now() - signalledAt;
      expect(code, "server A exits cleanly").to.equal(0);
      expect(stoppedInMs).to.be.below(8_000);

      const events = await waitForTurnEnd(received, followed.turnId, 60_000);
      expect(disconnects[0]).to.equal("transport close");
      expect(connects).to.equal(2);
      expect(balancer.routed.at(-1)).to.equal(b.url);
      expect(seqsOf(events)).to.deep.equal(
        events.map((_, i) => i + 1),
        "no gap and no duplicate across the reconnect",
      );
      expect(events.at(-1)!.event).to.equal("done");
      expect(await storedAnswer(followed.turnId)).to.deep.equal([textOf(events)]);
    } finally {
      await balancer.close();
      stack.llm.setTokenDelay(0);
    }
  });
});

/**
 * A TCP load balancer of the simplest kind: each connection goes to the first upstream that
 * accepts it. When a node stops listening, new connections fail over to the next.
 */
async function startBalancer(upstreams: string[]): Promise<{ url: string; routed: string[]; close(): Promise<void> }> {
  const routed: string[] = [];
  const open = new Set<TcpSocket>();
  const server: Server = createServer((downstream) => {
    open.add(downstream);
    downstream.pause();
    const tryUpstream = (index: number): void => {
      const target = upstreams[index];
      if (!target) return void downstream.destroy();
      const { hostname, port } = new URL(target);
      const upstream = createConnection({ host: hostname, port: Number(port) });
      upstream.once("error", () => tryUpstream(index + 1));
      upstream.once("connect", () => {
        routed.push(target);
        open.add(upstream);
        upstream.removeAllListeners("error");
        upstream.on("error", () => downstream.destroy());
        downstream.on("error", () => upstream.destroy());
        upstream.on("close", () => downstream.destroy());
        downstream.on("close", () => upstream.destroy());
        downstream.pipe(upstream).pipe(downstream);
        downstream.resume();
      });
    };
    tryUpstream(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
