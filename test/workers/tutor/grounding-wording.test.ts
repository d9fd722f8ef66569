/**
 * Grounding both ways, as a new employee of the demo organisation meets it with the offline model
 * `npm start` ships (its intent heuristics, hashed embeddings and extractive answers; nothing
 * scripted): a question that shares one everyday word with the material ("days") is answered on
 * the general rung, said aloud, whichever rung would have taken it; a question the material does
 * answer stays grounded however the employee words it — synonyms, an extra clause, two questions
 * in one, Spanish. The same judge decides the chunk rung and the document rung (relevance.ts).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { api, upload, waitFor } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { ask, freshEmployee, removeFreshEmployees, signIn, type Learner } from "./helpers";

const SAID_ALOUD = /not from company material|no proviene del material de la empresa|general knowledge|conocimiento general/i;
const GROUNDED_ALOUD = /according to the company material|según el material de la empresa/i;

describe("the tutor, complete: grounding survives the employee's wording, both ways", function () {
  this.timeout(120_000);
  let stack: Stack;
  let learner: Learner;

  before(async function () {
    stack = await useStack();
    stack.llm.reset();
    // Enrolled like the demo's employee@example.com: the returns and the warehouse courses.
    learner = await freshEmployee(stack, { enrolIn: ["returnsEssentials", "warehouseSafety"] });
  });

  afterEach(() => stack.llm.reset());
  after(async () => {
    await removeFreshEmployees(stack);
  });

  it("answers 'How many sick days do I get per year?' on the general rung, said aloud, not from the Returns Policy Manual", async () => {
    const turn = await ask(stack, learner, "How many sick days do I get per year?");
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding.rung, JSON.stringify(turn.grounding.sources)).to.equal("general");
    expect(turn.grounding.sources).to.deep.equal([]);
    expect(turn.citations).to.deep.equal([]);
    expect(turn.answer?.metadata.rung).to.equal("general");
    expect(turn.answer?.content).to.match(SAID_ALOUD).and.not.match(GROUNDED_ALOUD);
  });

  it("grounds 'How many days do I have to return a product, and what do I need to bring?' in the Returns Policy Manual", async () => {
    const turn = await ask(stack, learner, "How many days do I have to return a product, and what do I need to bring?");
    expect(turn.errors).to.deep.equal([]);
    expect(turn.grounding.rung, turn.tokens).to.equal("chunks");
    expect(turn.grounding.sources.map((source) => source.document)).to.include("Returns Policy Manual");
    // "and what do I need to bring?" holds only everyday words: the question is judged as one, by its first clause's terms.
    expect(turn.grounding.sources.map((source) => source.section)).to.include("1. Refund Window");
    expect(turn.citations.length).to.be.greaterThan(0);
    expect(turn.answer?.metadata.rung).to.equal("chunks");
    expect(turn.answer?.content).to.not.match(SAID_ALOUD);
    expect(turn.answer?.content).to.match(/30 days/);
  });

  it("takes the warehouse manual (no chunks) on the document rung only when its text answers", async () => {
    const lift = await ask(stack, learner, "¿Cuánto peso puedo levantar yo solo sin ayuda?");
    expect(lift.grounding.rung, lift.tokens).to.equal("document");
    expect(lift.grounding.sources[0]).to.include({ sourceId: DEMO_IDS.documentIds.warehouseSafety });

    // Shares "turno" and "horas" with the manual, and asks about neither.
    const shifts = await ask(stack, learner, "¿Cuántas horas extra puedo hacer en un turno de noche?");
    expect(shifts.grounding.rung, JSON.stringify(shifts.grounding.sources)).to.equal("general");
    expect(shifts.answer?.content).to.match(SAID_ALOUD);
  });

  describe("with a second organisation whose material does answer", () => {
    let otherOrgId: string;
    let other: Learner;

    before(async function () {
      this.timeout(60_000);
      const db = stack.server.deps.db;
      const tag = randomUUID().slice(0, 8);
      [{ id: otherOrgId }] = await db("organizations")
        .insert({ name: "Sick Leave Ltd", slug: `sick-leave-${tag}` })
        .returning("id");
      await db("users").insert([
        { org_id: otherOrgId, email: `hr-${tag}@example.com`, name: "HR Admin", role: "admin", department: "HR", locale: "en" },
        { org_id: otherOrgId, email: `staff-${tag}@example.com`, name: "Staff Member", role: "employee", department: "Shop", locale: "en" },
      ]);
      const admin = await signIn(stack, `hr-${tag}@example.com`);
      admin.socket.disconnect();
      const policy =
        "# Sick Leave Policy\n\n## Paid sick days\n\nEvery employee gets 12 paid sick days per year. Tell your manager before your shift starts.\n";
      const posted = await upload(stack.baseUrl, admin.token, { name: "sick-leave.md", bytes: Buffer.from(policy), type: "text/markdown" });
      expect(posted.status, JSON.stringify(posted.body)).to.be.oneOf([200, 202]);
      await waitFor(
        async () => {
          const current = await api(stack.baseUrl, "GET", `/api/v1/documents/${posted.body.document_id}`, { token: admin.token });
          return current.body.status === "COMPLETED" ? current.body : undefined;
        },
        30_000,
        "the sick leave policy indexed",
      );
      other = await signIn(stack, `staff-${tag}@example.com`);
    });

    after(async () => {
      other?.socket.disconnect();
      if (otherOrgId) await stack.server.deps.db("organizations").where({ id: otherOrgId }).delete();
    });

    it("grounds the sick-days question in that organisation's own policy, and never lends it to the demo's employee", async () => {
      const own = await ask(stack, other, "How many sick days do I get per year?");
      expect(own.grounding.rung).to.equal("chunks");
      expect(own.grounding.sources.map((source) => source.document)).to.deep.equal(["Sick Leave Policy"]);
      expect(own.answer?.content).to.match(/12 paid sick days/);

      // The other organisation's "sick" neither reaches the demo's sources nor its term rarities.
      const demo = await ask(stack, learner, "How many sick days do I get per year?");
      expect(demo.grounding.rung).to.equal("general");
      expect(demo.grounding.sources).to.deep.equal([]);
      expect(demo.answer?.content).to.not.match(/12 paid sick days/);
    });
  });
});
