/**
 * The product's prompts and the offline model (offline-model/) agree on wording only through
 * lib/prompt-markers.ts. Each real prompt is built here with the product's own builders and
 * answered by the offline model, which must answer with the task that prompt asks for (a label,
 * module numbers, a summary, a cited or a general-knowledge answer). Each case also rewords the
 * built prompt without one of its markers and expects that check to fail, so a prompt rewritten
 * without the shared constant is caught here rather than by a silently dumb default model.
 */
import { expect } from "chai";
import type { ModuleOutline } from "../../../db/queries/learner";
import { LABELS, GENERAL_KNOWLEDGE, MODULE_LABEL, MODULE_SELECTION_TASK, SOURCES_CLOSE, SUMMARY_TASK } from "../../../lib/prompt-markers";
import { offlineReply } from "../../../offline-model/offline-responder";
import type { ChatMessage } from "../../../offline-model/responder";
import { INTENTS } from "../../../queues/payloads";
import { adminSummaryPrompt } from "../../../workers/admin/prompts";
import { SPEAKERS, transcript } from "../../../workers/turns/history";
import { classificationPrompt, parseIntent } from "../../../workers/tutor/intent";
import { summaryPrompt, tutorSystemPrompt, tutorUserMessage } from "../../../workers/tutor/prompts";
import { moduleSelectionPrompt, parseModuleSelection } from "../../../workers/tutor/retrieval/page-index";

const MODULES: ModuleOutline[] = [
  { id: "m1", position: 1, title: "Welcome", summary: "introduction to the company and its values" },
  { id: "m2", position: 2, title: "Returns", summary: "refund window, receipts and store credit" },
  { id: "m3", position: 3, title: "Parking", summary: "lots, permits and the front desk" },
];

const SOURCES = [
  {
    index: 1,
    document: "Returns Policy Manual",
    section: "Refund window",
    page: 3,
    sourceType: "document_chunk" as const,
    sourceId: "c1",
    content: "Customers may return items within 30 days of purchase. The refund goes back to the original payment method.",
  },
  {
    index: 2,
    document: "Onboarding Guide",
    section: "Parking",
    page: null,
    sourceType: "document_chunk" as const,
    sourceId: "c2",
    content: "Employees can park in lot B. Parking permits are issued by the front desk.",
  },
];

interface Case {
  task: string;
  /** The messages the product sends for this task, built with its own prompt builders. */
  messages: () => ChatMessage[];
  /** Wording the offline model needs in those messages; rewording any of it must break the task. */
  markers: string[];
  answered: (reply: string) => boolean;
}

const user = (content: string): ChatMessage => ({ role: "user", content });

const CASES: Case[] = [
  {
    task: "intent: an off-topic message is labelled off_topic",
    messages: () => [user(classificationPrompt({ message: "Who won the football match yesterday?", courseTitle: null, lessonTitle: null }))],
    markers: [LABELS.employeeMessage, "chitchat"],
    answered: (reply) => (INTENTS as readonly string[]).includes(reply.trim()) && parseIntent(reply) === "off_topic",
  },
  {
    task: "intent: a question inside a course is labelled in_course",
    messages: () => [
      user(classificationPrompt({ message: "How many days do customers have to return items?", courseTitle: "Returns 101", lessonTitle: null })),
    ],
    markers: [LABELS.course],
    answered: (reply) => reply.trim() === "in_course",
  },
  {
    task: "module selection: the module that shares the question's words",
    messages: () => [user(moduleSelectionPrompt(MODULES, "How long is the refund window for returns?"))],
    markers: [MODULE_SELECTION_TASK, MODULE_LABEL, LABELS.question],
    answered: (reply) =>
      reply.trim() === "2" &&
      parseModuleSelection(reply, MODULES)
        .map((m) => m.id)
        .join() === "m2",
  },
  {
    task: "summary: the employee's questions, in order",
    messages: () => [
      user(
        summaryPrompt(
          transcript([
            { user: "How many days do customers have to return items?", assistant: "Within 30 days [1]." },
            { user: "Where do I park?", assistant: "In lot B [2]." },
          ]),
          null,
        ),
      ),
    ],
    markers: [SUMMARY_TASK, LABELS.employeeTurn],
    answered: (reply) => reply.startsWith("The employee asked: How many days do customers have to return items? Then they asked: Where do I park?"),
  },
  {
    task: "admin summary: the admin's questions, in order",
    messages: () => [
      user(
        adminSummaryPrompt(
          transcript(
            [
              { user: "Who in Sales is behind on Returns Essentials?", assistant: "Ava and Bea." },
              { user: "Who could mentor them?", assistant: "Carlos Ruiz." },
            ],
            SPEAKERS.admin,
          ),
          null,
        ),
      ),
    ],
    markers: [SUMMARY_TASK, LABELS.adminTurn],
    answered: (reply) => reply.startsWith("The admin asked: Who in Sales is behind on Returns Essentials? Then they asked: Who could mentor them?"),
  },
  {
    task: "grounded answer: the matching source sentence, cited",
    messages: () => [
      { role: "system", content: tutorSystemPrompt({ orgName: "Acme", language: "en", rung: "chunks", intent: "cross_course" }) },
      user(tutorUserMessage("How many days do customers have to return items?", SOURCES)),
    ],
    // The closing delimiter is not listed: the Question line also ends the last source, so a reworded one changes nothing here.
    markers: [LABELS.question],
    answered: (reply) => reply.includes("within 30 days") && reply.includes("[1]") && !reply.includes("[2]") && !reply.includes(SOURCES_CLOSE),
  },
  {
    task: "general rung: an uncited answer that says it is not company material",
    messages: () => [
      { role: "system", content: tutorSystemPrompt({ orgName: "Acme", language: "en", rung: "general", intent: "cross_course" }) },
      user(tutorUserMessage("How do I write a good status report?", [])),
    ],
    markers: [GENERAL_KNOWLEDGE],
    answered: (reply) => reply.startsWith("This is not from company material: ") && !/\[\d+\]/.test(reply),
  },
  {
    // The question does not say its language ("SAP?"): the product chose German through its fallbacks, and the prompt says so.
    task: "answer language: the reply is in the language the prompt names",
    messages: () => [
      { role: "system", content: tutorSystemPrompt({ orgName: "Acme", language: "de", rung: "general", intent: "cross_course" }) },
      user(tutorUserMessage("SAP?", [])),
    ],
    markers: [LABELS.answerLanguage],
    answered: (reply) => reply.startsWith("Das stammt nicht aus den Unterlagen des Unternehmens: "),
  },
];

const replyTo = (messages: ChatMessage[]): string => offlineReply({ model: "offline-extractive", messages, stream: false }).content ?? "";

const textOf = (messages: ChatMessage[]): string => messages.map((message) => String(message.content)).join("\n");

const reworded = (messages: ChatMessage[], marker: string): ChatMessage[] =>
  messages.map((message) => ({ ...message, content: String(message.content).replaceAll(marker, "Xq") }));

describe("prompt markers: the offline model recognises the product's prompts", () => {
  for (const c of CASES) {
    it(`${c.task}`, () => {
      const reply = replyTo(c.messages());
      expect(c.answered(reply), `offline reply: ${reply}`).to.equal(true);
    });

    for (const marker of c.markers) {
      it(`${c.task}: fails once the prompt is reworded without "${marker}"`, () => {
        const messages = c.messages();
        expect(textOf(messages), "the product's prompt uses the shared wording").to.include(marker);
        const reply = replyTo(reworded(messages, marker));
        expect(c.answered(reply), `offline reply without "${marker}": ${reply}`).to.equal(false);
      });
    }
  }
});
