/**
 * Issue 30, point 3: a turn whose sender is deactivated while it waits in the queue ends before
 * any model call — one final `error` ACCOUNT_INACTIVE on the socket, a `failed` (empty) message
 * instead of an answer, no usage charged — for the tutor and the admin assistant alike.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { api, join, waitForTurnEnd, type ReceivedEvent } from "../../harness/client";
import { stackSuite } from "../../support/suite";
import { cleanUp, freshUser } from "../admin/helpers";

describe("a turn whose sender was deactivated while it was queued", function () {
  const stack = stackSuite(this, { cleanUp });

  for (const agent of [
    { name: "tutor", path: "/api/v1/chat", queue: "tutor-generate", role: "employee" },
    { name: "admin assistant", path: "/api/v1/chat/admin", queue: "admin-plan", role: "admin" },
  ] as const) {
    it(`${agent.name}: ends with ACCOUNT_INACTIVE, asks the model nothing, stores no answer and charges nothing`, async () => {
      const sender = await freshUser(stack, { role: agent.role });
      const message = `What is the returns policy? ${randomUUID()}`;
      const db = stack.server.deps.db;
      // Hold the queue back (a global pause: no worker takes its jobs) so the deactivation lands first.
      const queue = stack.server.deps.producer.queue(agent.queue);
      await queue.pause();
      let events: ReceivedEvent[];
      let ids: { session_id: string; turn_id: string };
      try {
        const posted = await api(stack.baseUrl, "POST", agent.path, { token: sender.token, body: { message } });
        expect(posted.status, JSON.stringify(posted.body)).to.equal(202);
        ids = posted.body;
        expect(await join(sender.socket, { sessionId: ids.session_id })).to.include({ ok: true });
        await db("users").where({ id: sender.id }).update({ is_active: false });
        await queue.resume();
        events = await waitForTurnEnd(sender.events, ids.turn_id, 20_000);
      } finally {
        await queue.resume();
      }

      const names = events.map((e) => e.event);
      expect(names).to.not.include("token");
      expect(names).to.not.include("done");
      const errors = events.filter((e) => e.event === "error");
      expect(errors).to.have.length(1);
      expect(errors[0]!.payload).to.include({ code: "ACCOUNT_INACTIVE" });
      expect(errors[0]!.payload.message).to.match(/deactivated/);
      expect(errors[0]!.payload.willRetry).to.not.equal(true);

      const asked = stack.llm.chatCalls().filter((request) => JSON.stringify(request.body ?? {}).includes(message));
      expect(asked, "the model got no request for this turn").to.have.length(0);
      const stored = await db("chat_messages").where({ turn_id: ids.turn_id, role: "assistant" });
      expect(stored).to.have.length(1);
      expect(stored[0]).to.include({ status: "failed", content: "" });
      expect(stored[0].metadata).to.include({ error_code: "ACCOUNT_INACTIVE" });
      expect(await db("llm_usage_log").where({ user_id: sender.id })).to.have.length(0, "nothing charged");
    });
  }
});
