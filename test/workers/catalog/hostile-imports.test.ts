/**
 * No bulk import can stall another organisation (issue 44; security review F1), on the real stack
 * (the server and the workers share this process's event loop, as `WORKER_QUEUES=all` does in
 * production). Organisation B posts a hostile import — 8 MB of 2-byte lines, one huge JSON array,
 * records nested millions of levels deep — while an employee of organisation A (the demo
 * organisation) asks the tutor. A's answer streams to its end with no `restart` and no `STALLED`,
 * the event loop is never held past 200 ms around B's whole import, and B's import ends with its
 * records counted but only the first problems stored.
 */
import { expect } from "chai";
import { api, connect, join, login, recordEvents, type ReceivedEvent } from "../../harness/client";
import { waitFor } from "../../harness/client";
import { IMPORT_MAX_RECORDS, IMPORT_PROBLEMS_KEPT } from "../../../lib/catalog-import-problems";
import { expectNoLongBlock } from "../../support/event-loop-block";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { askTutor, eventsOfTurn, expectEndedOnce, finalText } from "../../reliability/helpers";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { cleanUp, freshUser } from "../admin/helpers";
import { scriptedResponder } from "../tutor/helpers";

const ANSWER = Array.from({ length: 120 }, (_, i) => `Step ${i + 1} of the lockout procedure is done in order.`).join(" ");

describe("a hostile bulk import of one organisation while another's tutor turn streams", function () {
  const stack = stackSuite(this, { timeoutMs: 180_000 });
  let orgB: string;
  let keyB: string;

  before(async () => {
    orgB = await freshOrganisation(stack, "Hostile importer");
    const adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    const created = await api(stack.baseUrl, "POST", "/api/v1/admin/integration-keys", {
      token: adminB.token,
      body: { name: "bomb", scopes: ["catalog:write"] },
    });
    keyB = created.body.key;
  });

  after(async () => {
    await cleanUp(stack);
    await dropOrganisations(stack.server.deps.db, [orgB]);
  });

  async function importEnded(id: string): Promise<any> {
    let last: any;
    await waitFor(
      async () => {
        last = (await api(stack.baseUrl, "GET", `/api/v1/integrations/catalog/imports/${id}?limit=1000`, { token: keyB })).body;
        return ["completed", "failed"].includes(last?.import?.status);
      },
      120_000,
      "B's import to end",
    );
    return last;
  }

  /**
   * B posts `body`; then A's employee asks the tutor. Watched for long blocks from B's post until
   * both have ended. Returns B's import (with a page of 1,000 problems) and A's turn's events.
   */
  async function hostileImportDuringTurn(body: Buffer, type: string): Promise<{ ofB: any; ofA: ReceivedEvent[] }> {
    stack.llm.setResponder(scriptedResponder({ label: "cross_course", generation: () => ANSWER }));
    stack.llm.setTokenDelay(10);
    const { token } = await login(stack.baseUrl, "employee@example.com");
    const socket = await connect(stack.baseUrl, token);
    const received = recordEvents(socket);
    try {
      return await expectNoLongBlock("B's hostile import", async () => {
        const posted = await fetch(`${stack.baseUrl}/api/v1/integrations/catalog/imports`, {
          method: "POST",
          headers: { authorization: `Bearer ${keyB}`, "content-type": type },
          body,
        });
        expect(posted.status).to.equal(202);
        const { id } = ((await posted.json()) as { import: { id: string } }).import;
        const { sessionId, turnId } = await askTutor(stack.baseUrl, token, "How do I lock out the press before cleaning it?");
        expect(await join(socket, { sessionId })).to.include({ ok: true });
        const ofB = await importEnded(id);
        const { ofTurn } = await expectEndedOnce(received, turnId);
        return { ofB, ofA: eventsOfTurn(ofTurn, turnId) };
      });
    } finally {
      socket.disconnect();
    }
  }

  function expectTurnUntouched(events: ReceivedEvent[]): void {
    expect(events.filter((e) => e.event === "token").length, "A's first token arrived").to.be.greaterThan(0);
    expect(
      events.filter((e) => e.event === "stage" && e.payload.status === "restart"),
      "no restart",
    ).to.have.length(0);
    expect(events.filter((e) => e.event === "error").map((e) => e.payload.code)).not.to.include("STALLED");
    expect(finalText(events)).to.include("Step 120 of the lockout procedure");
  }

  async function storedProblems(importId: string): Promise<number> {
    return Number((await stack.server.deps.db("catalog_import_problems").where({ import_id: importId }).count("* as n").first())!.n);
  }

  it("8 MB of 2-byte lines: A's answer streams to its end; B's 4,000,000 lines are counted, 1,000 problems stored", async () => {
    const lines = 4_000_000;
    const { ofB, ofA } = await hostileImportDuringTurn(Buffer.from("x\n".repeat(lines)), "application/x-ndjson");
    expectTurnUntouched(ofA);
    expect(ofB.import).to.include({ status: "completed", total: lines, done: lines });
    expect(ofB.import.counts).to.deep.equal({ created: 0, updated: 0, unchanged: 0, deleted: 0, failed: lines });
    expect(ofB.import.problems_omitted).to.deep.equal({
      total: lines - IMPORT_PROBLEMS_KEPT,
      by_code: { INVALID_JSON: IMPORT_MAX_RECORDS - IMPORT_PROBLEMS_KEPT, TOO_MANY_RECORDS: lines - IMPORT_MAX_RECORDS },
    });
    expect(ofB.problems).to.have.length(IMPORT_PROBLEMS_KEPT);
    expect(ofB.next_after_line).to.equal(null);
    expect(await storedProblems(ofB.import.id)).to.equal(IMPORT_PROBLEMS_KEPT);
  });

  it("one huge JSON array (8 MB, 4 million items): A's answer streams to its end; B's items are counted, 1,000 problems stored", async () => {
    const items = 4_000_000;
    const { ofB, ofA } = await hostileImportDuringTurn(Buffer.from(`[${"1,".repeat(items - 1)}1]`), "application/json");
    expectTurnUntouched(ofA);
    expect(ofB.import).to.include({ status: "completed", total: items });
    expect(ofB.import.counts.failed).to.equal(items);
    expect(ofB.import.problems_omitted.by_code).to.deep.equal({
      INVALID_RECORD: IMPORT_MAX_RECORDS - IMPORT_PROBLEMS_KEPT,
      TOO_MANY_RECORDS: items - IMPORT_MAX_RECORDS,
    });
    expect(await storedProblems(ofB.import.id)).to.equal(IMPORT_PROBLEMS_KEPT);
  });

  it("records nested millions of levels deep (NDJSON lines of 4 MiB, and a JSON document): each refused alone, the rest applied, A untouched", async () => {
    const deep = (depth: number) =>
      `{"type":"exercise","external_id":"e-deep","lesson":"l","prompt":"p","kind":"k","answer":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const fine = JSON.stringify({ type: "skill_category", external_id: "deep-ok", name: "Survives" });
    const ndjson = [deep(2 * 1024 * 1024 - 100), `{"type":"exercise","answer":${"[".repeat(4 * 1024 * 1024 - 100)}`, fine].join("\n");
    const lines = await hostileImportDuringTurn(Buffer.from(ndjson), "application/x-ndjson");
    expectTurnUntouched(lines.ofA);
    expect(lines.ofB.import.counts).to.deep.include({ created: 1, failed: 2 });
    expect(lines.ofB.problems.map((p: { line: number; code: string }) => [p.line, p.code])).to.deep.equal([
      [1, "INVALID_RECORD"],
      [2, "INVALID_JSON"],
    ]);

    const json = `{"records":[${deep(4 * 1024 * 1024 - 100)},${fine.replace("deep-ok", "deep-ok-2")}]}`;
    const document = await hostileImportDuringTurn(Buffer.from(json), "application/json");
    expectTurnUntouched(document.ofA);
    expect(document.ofB.import.counts).to.deep.include({ created: 1, failed: 1 });
    expect(document.ofB.problems.map((p: { line: number; code: string }) => [p.line, p.code])).to.deep.equal([[1, "INVALID_RECORD"]]);
  });
});
