/**
 * The admin exchange in docs/demo.md with the offline model `npm start` ships: no scripted replies, the
 * model picks tools and arguments from the words, and the demo org's Sales team gets the course.
 */
import { expect } from "chai";
import { DEMO_IDS } from "../../../db/seeds/demo-ids";
import { login, connect, recordEvents } from "../../harness/client";
import { useStack, type Stack } from "../../support/stack";
import { actionOf, askAdmin, waitForAction, type Person } from "./helpers";

describe("admin assistant on the offline model (the docs/demo.md exchange)", function () {
  this.timeout(60_000);
  let stack: Stack;
  let admin: Person;

  before(async function () {
    this.timeout(120_000);
    stack = await useStack();
    stack.llm.reset();
    const { token, user } = await login(stack.baseUrl, "admin@example.com");
    const socket = await connect(stack.baseUrl, token);
    admin = { id: user.id, name: "Ana Admin", email: "admin@example.com", token, socket, events: recordEvents(socket) };
  });
  after(() => admin?.socket.disconnect());

  it("finds who knows returns handling, lists Sales, proposes the assignment and runs it on 'sí'", async () => {
    const who = await askAdmin(stack, admin, "who knows returns handling?");
    expect(who.toolResults[0]).to.include({ tool: "who_knows", ok: true });
    expect(who.answer!.content).to.include("Carlos Ruiz").and.include("Eli Employee");

    const sales = await askAdmin(stack, admin, "list the employees in Sales", who.sessionId);
    expect(sales.toolResults[0]).to.include({ tool: "list_employees", ok: true });
    expect(sales.answer!.content).to.match(/Carlos Ruiz|Hannah Lee/);

    const assign = await askAdmin(stack, admin, "assign Returns Essentials to everyone in Sales with a deadline next Friday", who.sessionId);
    expect(assign.pending, assign.answer?.content).to.include({ tool: "assign_course", total: 5 });
    const db = stack.server.deps.db;
    const salesIds = await db("users").where({ org_id: DEMO_IDS.orgId, department: "Sales", is_active: true, role: "employee" }).pluck("id");
    const before = await db("enrollments")
      .whereIn("user_id", salesIds)
      .where({ course_id: DEMO_IDS.courseIds.returnsEssentials })
      .select("user_id", "status", "deadline");
    expect(before).to.have.length(3, "Nora and Hannah are not enrolled yet");

    // The question a new admin asks first: answered with what a yes would run; nothing runs.
    const question = await askAdmin(stack, admin, "What happens if I say yes?", who.sessionId);
    expect(question.answer!.content).to.match(/^Nothing has run yet\. If you confirm, I will do exactly this: Assign "Returns Essentials"/);
    expect(question.answer!.content).to.match(/is still pending, waiting for your confirmation\. To run it, press Confirm or reply with a plain “yes”/);
    expect((await actionOf(stack, admin, assign.pending.actionId)).action.status).to.equal("pending");
    const unchanged = await db("enrollments").whereIn("user_id", salesIds).where({ course_id: DEMO_IDS.courseIds.returnsEssentials });
    expect(unchanged).to.have.length(3);

    const yes = await askAdmin(stack, admin, "sí", who.sessionId);
    expect(yes.answer!.content).to.match(/^Confirmado/);
    const done = await waitForAction(stack, admin, assign.pending.actionId, ["completed", "partial", "failed"]);
    expect(done.action.status).to.equal("completed");
    const after = await db("enrollments").whereIn("user_id", salesIds).where({ course_id: DEMO_IDS.courseIds.returnsEssentials });
    expect(after).to.have.length(5);
  });
});
