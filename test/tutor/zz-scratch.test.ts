import { useStack, type Stack } from "../support/stack";
import { ask, signIn, scriptedResponder, type Learner } from "./helpers";
import { DEMO_IDS, lessonId } from "../../db/seeds/demo-ids";

describe("scratch", function () {
  this.timeout(120_000);
  let stack: Stack; let me: Learner;
  before(async () => { stack = await useStack(); me = await signIn(stack, "employee@example.com"); });
  after(() => me.socket.disconnect());
  const show = (t: any) => console.log(JSON.stringify({ names: t.names.join(","), g: t.grounding, meta: { intent: t.answer?.metadata.intent, rung: t.answer?.metadata.rung }, cit: t.citations, sugg: t.suggestions, ans: t.answer?.content }, null, 1));
  it("runs", async () => {
    for (const [q, label, ctx] of [
      ["hola", undefined, {}],
      ["What is my progress and my deadlines?", undefined, {}],
      ["How do I count the 30 days?", "in_course", { course_id: DEMO_IDS.courseIds.returnsEssentials, lesson_id: lessonId(0, 0, 0) }],
      ["What is ticket escalation code ZEBRA-7 for?", "cross_course", {}],
      ["¿Qué necesito para conducir una carretilla elevadora?", "cross_course", {}],
      ["Who won the 1998 football world cup?", "cross_course", {}],
      ["Who won the 1998 football world cup?", "off_topic", {}],
    ] as const) {
      stack.llm.reset();
      if (label) stack.llm.setResponder(scriptedResponder({ label }));
      const t = await ask(stack, me, q, ctx as any);
      console.log("=====", q, label);
      show(t);
      console.log(stack.llm.requests.map((r) => r.path + " " + (r.body?.stream ? "stream" : "")).join(" | "));
    }
  });
});
