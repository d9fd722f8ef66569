/** Conversation memory: turns, the raw window and when a summary is due (workers/turns/history.ts). */
import { expect } from "chai";
import { rawWindow, summaryDue, toTurns, transcript, SPEAKERS, type Turn } from "../../../../workers/turns/history";

describe("conversation memory", () => {
  const turns = (n: number): Turn[] => Array.from({ length: n }, (_, i) => ({ user: `q${i + 1}`, assistant: `a${i + 1}` }));

  it("summaryDue waits until a turn has aged out of the raw window, then refreshes every six", () => {
    expect(summaryDue(0, 0, false)).to.equal(null);
    expect(summaryDue(6, 0, false)).to.equal(null);
    expect(summaryDue(7, 0, false)).to.equal(1);
    expect(summaryDue(8, 0, false)).to.equal(2);
    expect(summaryDue(8, 1, true)).to.equal(null);
    expect(summaryDue(12, 1, true)).to.equal(null);
    expect(summaryDue(13, 1, true)).to.equal(7);
  });

  it("rawWindow shows everything the summary does not cover, but never fewer than the last six turns", () => {
    expect(rawWindow(turns(10), 0).map((t) => t.user)).to.deep.equal(turns(10).map((t) => t.user));
    expect(rawWindow(turns(10), 3).map((t) => t.user)).to.deep.equal(["q4", "q5", "q6", "q7", "q8", "q9", "q10"]);
    expect(rawWindow(turns(10), 9).map((t) => t.user)).to.deep.equal(["q5", "q6", "q7", "q8", "q9", "q10"]);
    expect(rawWindow(turns(3), 5).map((t) => t.user)).to.deep.equal(["q1", "q2", "q3"]);
  });

  it("toTurns pairs messages by turn, oldest first, and drops answers without a question", () => {
    const result = toTurns([
      { turn_id: "t1", role: "user", content: "first?" },
      { turn_id: "t1", role: "assistant", content: "one" },
      { turn_id: "t2", role: "assistant", content: "orphan" },
      { turn_id: "t3", role: "user", content: "third?" },
    ]);
    expect(result).to.deep.equal([
      { user: "first?", assistant: "one" },
      { user: "third?", assistant: null },
    ]);
  });

  it("folds an action's outcome message into the answer before it, so the prompt and the summary read it and turns still count questions", () => {
    const outcome = { action_outcome: { action_id: "a1", status: "completed" } };
    const turns = toTurns([
      { turn_id: "t1", role: "user", content: "assign it" },
      { turn_id: "t1", role: "assistant", content: "Shall I?" },
      { turn_id: "t2", role: "user", content: "yes" },
      { turn_id: "t2", role: "assistant", content: "Confirmed. Running." },
      { turn_id: "o1", role: "assistant", content: "The action finished: all 3 applied.", metadata: outcome },
      { turn_id: "t3", role: "user", content: "stop" },
      { turn_id: "o2", role: "assistant", content: "The action was stopped.", metadata: outcome },
      { turn_id: "t3", role: "assistant", content: "Stopping." },
    ]);
    expect(turns).to.deep.equal([
      { user: "assign it", assistant: "Shall I?" },
      { user: "yes", assistant: "Confirmed. Running.\n\nThe action finished: all 3 applied." },
      { user: "stop", assistant: "Stopping.\n\nThe action was stopped." },
    ]);
    expect(transcript(turns, SPEAKERS.admin)).to.include("The action finished: all 3 applied.");
  });
});
