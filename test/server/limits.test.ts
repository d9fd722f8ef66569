/**
 * Limits wherever a request costs something: tutor turns, uploads and re-indexing per user
 * and per organisation; socket handshakes and `join` calls per user. Runs a second server node
 * (same Redis, Postgres and workers as the stack) with small limits, and a fresh organisation,
 * so no other suite's traffic counts against a window and the stack's own limits stay as
 * shipped.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import { parseConfig } from "../../lib/config";
import { createSession } from "../../db/queries/chat-sessions";
import { startServer, type RunningServer } from "../../server/server";
import { LocalWindow } from "../../server/sockets/local-window";
import { api, connect, upload } from "../harness/client";
import { makeTxt } from "../support/document-fixtures";
import { useStack, type Stack } from "../support/stack";
import { cleanUp, freshUser, type Person } from "../workers/admin/helpers";
import { dropOrganisations } from "../support/organizations";
import { testEnv } from "../support/tunables";

describe("limits on costly requests", function () {
  this.timeout(60_000);
  let stack: Stack;
  let node: RunningServer;
  let orgId: string;
  let ana: Person;
  let ben: Person;
  let admin: Person;
  let otherAdmin: Person;
  const sockets: Socket[] = [];

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    node = await startServer(
      parseConfig(
        testEnv({
          ...process.env,
          RATE_LIMIT_TUTOR_PER_MINUTE: "2",
          RATE_LIMIT_ORG_TUTOR_PER_MINUTE: "3",
          RATE_LIMIT_UPLOADS_PER_MINUTE: "2",
          RATE_LIMIT_ORG_UPLOADS_PER_MINUTE: "3",
          RATE_LIMIT_REINDEX_PER_MINUTE: "1",
          RATE_LIMIT_ORG_REINDEX_PER_MINUTE: "5",
          RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: "3",
          RATE_LIMIT_SOCKET_JOINS_PER_MINUTE: "10",
          // The burst below tests the join window; cutting a flooding socket is tested in sockets/event-limits.test.ts.
          SOCKET_FLOOD_DISCONNECT_AFTER: "100000",
        }),
      ),
      { port: 0, host: "127.0.0.1" },
    );
    const slug = `limits-${randomUUID().slice(0, 8)}`;
    [{ id: orgId }] = await stack.server.deps.db("organizations").insert({ name: "Limits Ltd", slug }).returning("id");
    // Few sign-ins: dev-login has its own per-IP limit.
    [ana, ben, admin, otherAdmin] = [await member(), await member(), await member("admin"), await member("admin")];
  });

  after(async () => {
    for (const socket of sockets) socket.disconnect();
    await cleanUp(stack);
    await Promise.race([node?.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    // Users, sessions, documents and messages of the org go with it (ON DELETE CASCADE).
    if (orgId) await dropOrganisations(stack.server.deps.db, [orgId]);
  });

  const member = (role: "admin" | "employee" = "employee"): Promise<Person> => freshUser(stack, { orgId, role });
  const chat = (person: Person, message: string) => api(node.url, "POST", "/api/v1/chat", { token: person.token, body: { message } });
  const countIn = async (table: string) =>
    Number((await stack.server.deps.db(table).where({ org_id: orgId }).count<{ count: string }[]>("* as count").first())?.count);

  it("refuses tutor turns past the user's limit, then past the organisation's, saying whose limit it was", async () => {
    for (const message of ["one", "two"]) expect((await chat(ana, message)).status).to.equal(202);

    const own = await chat(ana, "three");
    expect(own.status).to.equal(429);
    expect(own.body.error).to.include({ code: "RATE_LIMITED", limit: "user" });
    expect(own.body.error.message).to.match(/your limit is 2 per minute/);
    expect(own.body.error.retry_after).to.be.within(1, 60);
    expect(own.headers.get("retry-after")).to.equal(String(own.body.error.retry_after));

    // Ana's refused request did not count against the organisation: Ben gets its third slot.
    expect((await chat(ben, "uno")).status).to.equal(202);
    const shared = await chat(ben, "dos");
    expect(shared.status).to.equal(429);
    expect(shared.body.error).to.include({ code: "RATE_LIMITED", limit: "organisation" });
    expect(shared.body.error.message).to.match(/your organisation's limit is 3 per minute/);
    expect(await countIn("chat_sessions")).to.equal(3, "refused turns store nothing");

    // Another organisation is not affected.
    const [{ id: otherOrgId }] = await stack.server.deps
      .db("organizations")
      .insert({ name: "Elsewhere Ltd", slug: `limits-other-${randomUUID().slice(0, 8)}` })
      .returning("id");
    try {
      const outsider = await freshUser(stack, { orgId: otherOrgId });
      expect((await chat(outsider, "hello")).status).to.equal(202);
    } finally {
      // The outsider and its session go with its organisation.
      await dropOrganisations(stack.server.deps.db, [otherOrgId]);
    }
  });

  it("limits uploads per admin and per organisation, refusing before the file is stored", async () => {
    const [first, second] = [admin, otherAdmin];
    const file = (n: number) => ({
      name: `limits-${n}.txt`,
      bytes: makeTxt(`Limits handbook part ${n} ${randomUUID()}.\n\nRefunds take five days.`),
      type: "text/plain",
    });
    expect((await upload(node.url, first.token, file(1))).status).to.equal(202);
    expect((await upload(node.url, first.token, file(2))).status).to.equal(202);
    const own = await upload(node.url, first.token, file(3));
    expect(own.status).to.equal(429);
    expect(own.body.error).to.include({ code: "RATE_LIMITED", limit: "user" });

    expect((await upload(node.url, second.token, file(4))).status).to.equal(202);
    const shared = await upload(node.url, second.token, file(5));
    expect(shared.status).to.equal(429);
    expect(shared.body.error).to.include({ code: "RATE_LIMITED", limit: "organisation" });
    expect(shared.body.error.message).to.match(/Too many upload requests/);
    expect(await countIn("documents")).to.equal(3);
  });

  it("limits re-indexing per admin", async () => {
    const document = await stack.server.deps.db("documents").where({ org_id: orgId }).first("id");
    expect(document, "an uploaded document of the org").to.not.equal(undefined);
    const again = () => api(node.url, "POST", `/api/v1/documents/${document.id}/reindex`, { token: admin.token });
    expect((await again()).status).to.equal(202);
    const refused = await again();
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.include({ code: "RATE_LIMITED", limit: "user" });
    expect(refused.body.error.message).to.match(/reindex/);
  });

  it("refuses a socket handshake past the per-user connection limit with a clear error", async () => {
    const person = ana;
    // freshUser connected once to the stack's node; this node counts its own handshakes too,
    // through the shared Redis window, so the first one there is already the second.
    for (let i = 0; i < 2; i++) sockets.push(await connect(node.url, person.token));
    let refused: (Error & { data?: { code?: string; retry_after?: number } }) | undefined;
    await connect(node.url, person.token).then(
      (socket) => sockets.push(socket),
      (error) => (refused = error),
    );
    expect(refused?.message).to.match(/^RATE_LIMITED: Too many socket-connection requests: your limit is 3 per minute/);
    expect(refused?.data).to.include({ code: "RATE_LIMITED" });
    expect(refused?.data?.retry_after).to.be.within(1, 60);
    // Someone else still connects.
    sockets.push(await connect(node.url, ben.token));
  });

  it("limits a burst of 1,000 joins without starving HTTP", async () => {
    const person = await member();
    const socket = await connect(node.url, person.token);
    sockets.push(socket);
    const session = await createSession(stack.server.deps.db, { orgId, userId: person.id }, { agentType: "tutor", title: "burst", context: {} });

    const quietStarted = performance.now();
    expect((await api(node.url, "GET", "/api/v1/chat/sessions", { token: person.token })).status).to.equal(200);
    const quietMs = performance.now() - quietStarted;

    const started = performance.now();
    const joins = Array.from(
      { length: 1000 },
      () => socket.timeout(30_000).emitWithAck("join", { sessionId: session.id }) as Promise<{ ok: boolean; error?: { code: string; retryAfter?: number } }>,
    );
    // Asked while the burst is being handled: answered promptly.
    const httpStarted = performance.now();
    const listed = await api(node.url, "GET", "/api/v1/chat/sessions", { token: person.token });
    const httpMs = performance.now() - httpStarted;
    const acks = await Promise.all(joins);
    const burstMs = performance.now() - started;

    expect(listed.status).to.equal(200);
    expect(listed.body.sessions.map((s: { id: string }) => s.id)).to.include(session.id);
    expect(httpMs, "HTTP latency during the burst").to.be.lessThan(3_000);
    const ok = acks.filter((ack) => ack.ok).length;
    const limited = acks.filter((ack) => ack.error?.code === "RATE_LIMITED");
    expect(ok).to.be.within(1, 10);
    expect(limited.length).to.equal(1000 - ok);
    expect(limited[0]!.error!.retryAfter).to.be.within(1, 60);
    console.log(
      `      1,000 joins answered in ${Math.round(burstMs)} ms (${ok} admitted); GET /sessions took ${Math.round(httpMs)} ms during the burst, ${Math.round(quietMs)} ms before it`,
    );
  });

  it("counts in memory with a sliding window (no I/O for refusals)", () => {
    const window = new LocalWindow(3, 60_000);
    const t0 = 1_800_000_000_000; // on a minute boundary
    expect([window.take("u", t0), window.take("u", t0 + 1), window.take("u", t0 + 2)]).to.deep.equal([0, 0, 0]);
    const wait = window.take("u", t0 + 3);
    expect(wait).to.be.within(1, 60_000);
    expect(window.take("other", t0 + 3)).to.equal(0);
    // Half of the next window: the previous window weighs half, 1.5 of 3 — admitted again.
    expect(window.take("u", t0 + 90_000)).to.equal(0);
    expect(window.take("u", t0 + 200_000)).to.equal(0);
  });
});
