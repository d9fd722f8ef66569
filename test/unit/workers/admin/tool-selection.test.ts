/**
 * Which tools an admin turn sends the model (workers/admin/tools/selection.ts): the core lookups
 * always, the tools of the topics the message names, the tool of an action awaiting an answer
 * whatever the message says, and every tool when the message names no topic.
 */
import { expect } from "chai";
import { ADMIN_TOOLS } from "../../../../workers/admin/tools";
import { CORE_TOOLS, selectTools } from "../../../../workers/admin/tools/selection";

const names = (message: string, options: { previousMessage?: string; inUse?: string[] } = {}) =>
  selectTools(ADMIN_TOOLS, { message, ...options }).map((tool) => tool.name);

describe("admin tool selection", () => {
  it("sends a question about courses the course tools and the core ones, never the people-deactivation tool", () => {
    for (const message of [
      "Which courses have the lowest completion rate this quarter?",
      "¿Qué cursos tienen la tasa de finalización más baja?",
      "Quels cours ont le taux de réussite le plus faible ?",
      "Welche Kurse haben die niedrigste Abschlussquote?",
    ]) {
      const sent = names(message);
      expect(sent, message).to.include.members([...CORE_TOOLS, "get_course_stats"]);
      expect(sent, message).to.not.include("deactivate_employee");
      expect(sent.length, message).to.be.lessThan(ADMIN_TOOLS.length);
    }
  });

  it("sends the deactivation tool when the admin asks to deactivate someone, in their language", () => {
    expect(names("Please deactivate Carlos Ruiz, he left the company")).to.include("deactivate_employee");
    expect(names("Desactiva la cuenta de Laura")).to.include("deactivate_employee");
    expect(names("Deaktiviere bitte das Konto von Jonas")).to.include("deactivate_employee");
  });

  it("keeps the tool of an action awaiting the admin's answer, even when the message is about something else", () => {
    const sent = names("Which courses have the lowest completion rate?", { inUse: ["deactivate_employee"] });
    expect(sent).to.include("deactivate_employee");
    expect(sent).to.include("get_course_stats");
  });

  it("reads a follow-up with the previous message, so 'and archive it' keeps the course it was about", () => {
    const sent = names("And then archive it", { previousMessage: "How is the Forklift basics course doing?" });
    expect(sent).to.include.members(["archive_course", "get_course_stats"]);
  });

  it("sends every tool when the message names no topic (nothing is left out on a guess)", () => {
    expect(names("Hi there!")).to.have.length(ADMIN_TOOLS.length);
    expect(names("Hola, ¿qué tal?")).to.have.length(ADMIN_TOOLS.length);
  });

  it("keeps the tools in their usual order", () => {
    const sent = names("Who could mentor the new hires on negotiation skills?");
    expect(sent).to.deep.equal(ADMIN_TOOLS.map((tool) => tool.name).filter((name) => sent.includes(name)));
    expect(sent).to.include.members(["get_mentorship_suggestions", "who_knows"]);
  });
});
