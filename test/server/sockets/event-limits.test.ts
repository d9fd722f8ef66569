/**
 * Issue 30.3: socket events have limits that cost less than the work they protect. Two server
 * nodes (same Redis and Postgres as the stack) with small limits: a real socket.io-client floods
 * `cancel` with random ids and is refused in memory, told `RATE_LIMITED`, then cut with
 * `rate_limited {code: "EVENT_FLOOD"}`; the database queries it caused are counted (knex query
 * events) and bounded; another organisation's user is still served. An employee's `watch_action`
 * is refused before any read; a user's sockets are capped across both nodes; a refused handshake
 * reads nothing from the database.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Socket } from "socket.io-client";
import { parseConfig } from "../../../lib/config";
import { startServer, type RunningServer } from "../../../server/server";
import { SocketCap } from "../../../server/sockets/socket-cap";
import { TokenBuckets } from "../../../server/sockets/token-bucket";
import { api, connect } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { cleanUp, freshUser } from "../../workers/admin/helpers";
import { dropOrganisations } from "../../support/organizations";
import { testEnv } from "../../support/tunables";

type Ack = { ok: boolean; error?: { code: string; message: string; retryAfter?: number } };
type HandshakeError = Error & { data?: { code?: string } };

const LIMITS = {
  SOCKET_EVENT_BURST: "10",
  SOCKET_EVENTS_PER_SECOND: "2",
  SOCKET_FLOOD_DISCONNECT_AFTER: "200",
  RATE_LIMIT_SOCKET_EVENTS_PER_MINUTE: "30",
  RATE_LIMIT_SOCKET_CONNECTIONS_PER_MINUTE: "6",
  SOCKET_MAX_PER_USER: "3",
  // No background sweep query in the counted windows.
  SOCKET_REAUTH_INTERVAL_MS: "3600000",
};

describe("socket event limits", function () {
  this.timeout(60_000);
  let stack: Stack;
  let nodeA: RunningServer;
  let nodeB: RunningServer;
  let otherOrgId: string;
  const sockets: Socket[] = [];
  let queriesOnA = 0;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    const config = parseConfig(testEnv({ ...process.env, ...LIMITS }));
    [nodeA, nodeB] = await Promise.all([startServer(config, { port: 0, host: "127.0.0.1" }), startServer(config, { port: 0, host: "127.0.0.1" })]);
    nodeA.deps.db.on("query", () => (queriesOnA += 1));
    [{ id: otherOrgId }] = await stack.server.deps
      .db("organizations")
      .insert({ name: "Bystanders Ltd", slug: `bystanders-${randomUUID().slice(0, 8)}` })
      .returning("id");
  });

  after(async () => {
    for (const socket of sockets) socket.disconnect();
    await cleanUp(stack);
    await Promise.race([Promise.all([nodeA?.close(), nodeB?.close()]), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (otherOrgId) await dropOrganisations(stack.server.deps.db, [otherOrgId]);
  });

  const open = async (url: string, token: string): Promise<Socket> => {
    const socket = await connect(url, token);
    sockets.push(socket);
    return socket;
  };
  const refusedHandshake = (url: string, token: string): Promise<HandshakeError> =>
    connect(url, token).then(
      (socket) => {
        sockets.push(socket);
        throw new Error("the handshake was admitted");
      },
      (error: HandshakeError) => error,
    );
  /** Queries node A ran while `work` did. */
  const countQueries = async (work: () => Promise<unknown>): Promise<number> => {
    const before = queriesOnA;
    await work();
    return queriesOnA - before;
  };

  it("limits a flood of cancel events in memory, cuts the socket, bounds its queries, and serves another organisation meanwhile", async () => {
    const flooder = await freshUser(stack);
    const bystander = await freshUser(stack, { orgId: otherOrgId });
    const socket = await open(nodeA.url, flooder.token);
    const cut = new Promise<{ code: string; message: string }>((resolve) => socket.once("rate_limited", resolve));
    const disconnected = new Promise<string>((resolve) => socket.once("disconnect", resolve));

    let meStatus = 0;
    let burst: Ack[] = [];
    const acks: Array<Ack | "unanswered"> = [];
    const queries = await countQueries(async () => {
      // A first burst, answered in full: the bucket's 10 are admitted (and read), the rest refused in memory.
      burst = await Promise.all(Array.from({ length: 30 }, () => socket.timeout(5_000).emitWithAck("cancel", { turnId: randomUUID() }) as Promise<Ack>));
      // Then the flood, until the socket is cut (acks of events still reading the database are lost with it).
      const flood = Array.from({ length: 2_000 }, () =>
        (socket.timeout(3_000).emitWithAck("cancel", { turnId: randomUUID() }) as Promise<Ack>).then(
          (ack) => acks.push(ack),
          () => acks.push("unanswered"),
        ),
      );
      // Asked while the flood is being handled, on the same node.
      meStatus = (await api(nodeA.url, "GET", "/api/v1/me", { token: bystander.token })).status;
      await Promise.all(flood);
    });

    expect(meStatus, "another organisation's user is served during the flood").to.equal(200);
    expect((await cut).code).to.equal("EVENT_FLOOD");
    expect(await disconnected).to.equal("io server disconnect");
    const admittedInBurst = burst.filter((ack) => ack.error?.code !== "RATE_LIMITED");
    expect(admittedInBurst.length, "the bucket's size").to.be.within(10, 11);
    expect(
      admittedInBurst.every((ack) => ack.error?.code === "NOT_FOUND"),
      "random ids are nobody's turn",
    ).to.equal(true);
    const limitedInBurst = burst.filter((ack) => ack.error?.code === "RATE_LIMITED");
    expect(limitedInBurst.length).to.equal(30 - admittedInBurst.length);
    expect(limitedInBurst[0]!.error!.retryAfter).to.be.within(1, 60);
    expect(limitedInBurst[0]!.error!.message).to.match(/Too many socket events/);

    const answered = acks.filter((ack): ack is Ack => ack !== "unanswered");
    const limited = answered.filter((ack) => ack.error?.code === "RATE_LIMITED");
    expect(limited.length, "refused until the cut").to.be.at.least(150);
    // The bucket refills 2/s: the whole run (a few seconds) admits a couple dozen events at most,
    // each reading the account and the turn; 2,030 unlimited events would have cost 4,000+ queries.
    expect(queries).to.be.at.most(60);
    console.log(
      `      2,030 cancel events: ${admittedInBurst.length} admitted in the burst, ${limited.length} refused in the flood, ${acks.length - answered.length} unanswered after the cut; ${queries} queries on the node`,
    );
  });

  it("refuses an employee's watch_action before any database read, and validates payloads first", async () => {
    const employee = await freshUser(stack);
    const socket = await open(nodeA.url, employee.token);
    let acks: Ack[] = [];
    const queries = await countQueries(async () => {
      acks = await Promise.all([
        socket.timeout(5_000).emitWithAck("watch_action", { actionId: randomUUID() }) as Promise<Ack>,
        socket.timeout(5_000).emitWithAck("watch_action", { actionId: "not-a-uuid" }) as Promise<Ack>,
        socket.timeout(5_000).emitWithAck("cancel", { turnId: 42 }) as Promise<Ack>,
        socket.timeout(5_000).emitWithAck("join", "sessions please") as Promise<Ack>,
      ]);
    });
    expect(acks.map((ack) => ack.error?.code)).to.deep.equal(["FORBIDDEN", "VALIDATION_ERROR", "VALIDATION_ERROR", "VALIDATION_ERROR"]);
    expect(queries).to.equal(0);
  });

  it("caps a user's open sockets across both nodes, refusing the extra handshake before any database read", async () => {
    // freshUser holds one socket on the stack's node already: the cap of 3 counts it too.
    const person = await freshUser(stack);
    await open(nodeA.url, person.token);
    const onB = await open(nodeB.url, person.token);
    let refused: HandshakeError | undefined;
    const queries = await countQueries(async () => {
      refused = await refusedHandshake(nodeA.url, person.token);
    });
    expect(refused!.message).to.match(/^TOO_MANY_SOCKETS: at most 3 open connections per user/);
    expect(refused!.data).to.include({ code: "TOO_MANY_SOCKETS" });
    expect(queries, "refused before the account is read").to.equal(0);
    // Closing one on node B frees a place on node A.
    onB.disconnect();
    const deadline = Date.now() + 5_000;
    let reopened: Socket | undefined;
    while (!reopened && Date.now() < deadline) {
      reopened = await connect(nodeA.url, person.token).catch(() => undefined);
      if (!reopened) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(reopened, "a freed place is usable from the other node").to.not.equal(undefined);
    sockets.push(reopened!);
  });

  it("checks the handshake rate before the database", async () => {
    const person = await freshUser(stack); // its first handshake, on the stack's node, counts in the shared window
    for (let i = 0; i < 5; i++) (await connect(nodeA.url, person.token)).disconnect();
    let refused: HandshakeError | undefined;
    const queries = await countQueries(async () => {
      refused = await refusedHandshake(nodeA.url, person.token);
    });
    expect(refused!.data).to.include({ code: "RATE_LIMITED" });
    expect(queries).to.equal(0);
  });

  it("counts a node's leases in Redis and forgets those of a node that stopped renewing", async () => {
    const cap = new SocketCap(stack.server.deps.redis, 2, stack.server.deps.log, 300);
    const userId = randomUUID();
    expect(await cap.claim({ userId, socketId: "a" }, 0)).to.equal(true);
    expect(await cap.claim({ userId, socketId: "b" }, 0)).to.equal(true);
    expect(await cap.claim({ userId, socketId: "c" }, 0)).to.equal(false);
    expect(await cap.claim({ userId, socketId: "a" }, 0), "renewing a held lease is not a new socket").to.equal(true);
    expect(await cap.claim({ userId, socketId: "c" }, 2), "the node's own count refuses without Redis").to.equal(false);
    await cap.release({ userId, socketId: "b" });
    expect(await cap.claim({ userId, socketId: "c" }, 0)).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await cap.claim({ userId, socketId: "d" }, 0), "leases nobody renewed have run out").to.equal(true);
  });

  it("refills a socket's bucket at its rate (pure logic)", () => {
    const buckets = new TokenBuckets(3, 2);
    const t0 = 1_000_000;
    expect([buckets.take("s", t0), buckets.take("s", t0), buckets.take("s", t0)]).to.deep.equal([0, 0, 0]);
    expect(buckets.take("s", t0)).to.equal(500);
    expect(buckets.take("other", t0)).to.equal(0);
    expect(buckets.take("s", t0 + 500)).to.equal(0);
    expect(buckets.take("s", t0 + 500)).to.be.within(1, 500);
    expect(buckets.take("s", t0 + 60_000)).to.equal(0);
  });
});
