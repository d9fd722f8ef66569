/**
 * The server's turn-event subscriber loses its connection (a Redis failover or restart does
 * that to every connection): whatever was published while it reconnected never arrives live.
 * Once subscribed again, each socket fetches what its logs got meanwhile, so a turn whose last
 * event fell into that window still ends for the client.
 */
import { expect } from "chai";
import { api, connect, join, login, recordEvents, waitFor, waitForTurnEnd } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { scriptedResponder } from "../../workers/tutor/helpers";

describe("turn events published while the server's subscriber reconnected", function () {
  const stack = stackSuite(this, { timeoutMs: 60_000 });

  it("are fetched from the log once it is subscribed again", async () => {
    stack.llm.setResponder(scriptedResponder({ label: "chitchat", generation: () => "Hello there." }));
    const { token } = await login(stack.baseUrl, "employee@example.com");
    const socket = await connect(stack.baseUrl, token);
    const received = recordEvents(socket);
    const admin = stack.server.deps.redis.duplicate();
    try {
      const posted = await api(stack.baseUrl, "POST", "/api/v1/chat", { token, body: { message: "Hello!" } });
      expect(posted.status).to.equal(202);
      const { session_id: sessionId, turn_id: turnId } = posted.body as { session_id: string; turn_id: string };
      expect(await join(socket, { sessionId })).to.include({ ok: true });
      const events = await waitForTurnEnd(received, turnId, 30_000);
      const lastSeq = Math.max(...events.map((e) => e.payload.seq as number));

      // An event that reached the log but whose PUBLISH no server heard (it was reconnecting).
      const data = JSON.stringify({ sessionId, turnId, content: " (late)" });
      await admin.xadd(`skillnet:turn:${turnId}:log`, "MAXLEN", "~", "1000", "0-*", "event", "token", "data", data);
      await admin.call("CLIENT", "KILL", "TYPE", "pubsub");

      const late = await waitFor(() => received.find((e) => e.payload?.turnId === turnId && e.payload.seq === lastSeq + 1), 20_000, "the missed event");
      expect(late.event).to.equal("token");
      expect(late.payload.content).to.equal(" (late)");
      expect(
        received.filter((e) => e.payload?.turnId === turnId && e.payload.seq === lastSeq + 1),
        "delivered once",
      ).to.have.length(1);
    } finally {
      socket.disconnect();
      await admin.quit();
    }
  });
});
