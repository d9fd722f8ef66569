/**
 * How a failed attempt is announced, against in-memory worker deps (test/support/fakes.ts): a
 * retry is announced on the turn's event log with its code and a retry hint, worded for the
 * agent whose turn it is, and an internal error's own text never reaches the event.
 * Ending a turn for good stores a row: that is covered against Postgres (admin/internal-text.test.ts).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { LlmError } from "../../../../workers/llm/errors";
import { announceFailure } from "../../../../workers/turns/stage-failure";
import { fakeWorkerDeps } from "../../../support/fakes";

describe("announcing a failed attempt (in-memory deps)", () => {
  const turn = () => ({ orgId: randomUUID(), sessionId: randomUUID(), turnId: randomUUID() });

  it("announces a retried model failure with its code, the retry hint and willRetry", async () => {
    const deps = fakeWorkerDeps();
    const data = turn();
    await announceFailure(deps, data, new LlmError("LLM_UNAVAILABLE", "The model is unreachable.", { recoveryHint: "wait" }), true);
    expect(deps.events.of(data.turnId)).to.deep.equal([
      {
        event: "error",
        payload: {
          code: "LLM_UNAVAILABLE",
          message: "The model is unreachable.",
          retryAfter: undefined,
          recoveryHint: "Retrying automatically; the answer will restart.",
          willRetry: true,
        },
      },
    ]);
  });

  for (const [agent, who] of [
    ["tutor", "The tutor"],
    ["admin", "The assistant"],
  ] as const) {
    it(`words an internal failure of ${agent === "admin" ? "an" : "a"} ${agent} turn for ${who.toLowerCase()}, without the error's own text`, async () => {
      const deps = fakeWorkerDeps();
      const data = turn();
      await announceFailure(deps, data, new Error('duplicate key value violates unique constraint "users_email"'), true, agent);
      const [announced] = deps.events.of(data.turnId);
      expect(announced?.payload).to.include({ code: "INTERNAL_ERROR", message: `${who} could not finish this answer.`, willRetry: true });
      expect(JSON.stringify(announced)).to.not.contain("duplicate key");
    });
  }
});
