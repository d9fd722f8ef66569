/**
 * The relay of a reasoning model's thinking to the turn's `reasoning` events: cleaned by the
 * tutor's answer guard (a recited prompt sentence withheld, a citation of no source dropped), what
 * the guard held sent whole on flush, whitespace alone never sent, and each model call's thinking
 * set apart from the last one's.
 */
import { expect } from "chai";
import type { TurnEventName } from "../../../../queues/events/contract";
import { reasoningRelay } from "../../../../workers/turns/reasoning-relay";
import type { TurnEmitter } from "../../../../workers/turns/turn-emitter";
import { AnswerGuard } from "../../../../workers/tutor/answer-guard";

function recorder(): { events: TurnEmitter; sent: Array<{ event: TurnEventName; content: string }> } {
  const sent: Array<{ event: TurnEventName; content: string }> = [];
  return {
    sent,
    events: {
      emit: async (event, payload) => {
        sent.push({ event, content: (payload as { content: string }).content });
        return sent.length;
      },
    },
  };
}

const PROMPT = "You are the tutor of Acme Retail. Answer only from the numbered sources below.";

describe("reasoningRelay", () => {
  it("sends the thinking through the guard, and what it held on flush", async () => {
    const { events, sent } = recorder();
    const relay = reasoningRelay(events, new AnswerGuard(new Set([1, 2]), PROMPT));
    await relay.onReasoning("The rules say: Answer only from the numbered sources below. Source [1] fits, [9] does not exist ");
    await relay.onReasoning("so I use [1");
    await relay.flush();
    await relay.flush();
    const thinking = sent.map((event) => event.content).join("");
    expect(sent.every((event) => event.event === "reasoning")).to.equal(true);
    expect(thinking).to.equal("The rules say: (instructions withheld) Source [1] fits, does not exist so I use [1");
  });

  it("sends no event for whitespace alone, nor for an empty flush", async () => {
    const { events, sent } = recorder();
    const relay = reasoningRelay(events, new AnswerGuard(new Set([1]), PROMPT));
    await relay.onReasoning("\n\n");
    await relay.flush();
    expect(sent).to.deep.equal([]);
  });

  it("sets each model call's thinking apart from the previous one's, and the first call's from nothing", async () => {
    const { events, sent } = recorder();
    const relay = reasoningRelay(events);
    relay.nextCall();
    await relay.onReasoning("I should list the courses.");
    relay.nextCall();
    await relay.onReasoning(" Three courses came back.");
    expect(sent.map((event) => event.content)).to.deep.equal(["I should list the courses.", "\n\nThree courses came back."]);
  });
});
