/**
 * Background model calls check the organisation's AI allowance: with two organisations, one
 * spent and one not, the summary job and the question-embedding sweep make no model call for the
 * spent one (the job says why) and carry on for the other — even when the spent one's questions
 * alone would fill the sweep's batch.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { setMonthlyAllowance } from "../../../commands/ai-allowance";
import { insertUsage } from "../../../db/queries/llm-usage";
import type { CallContext, ChatMessage, LlmClient } from "../../../workers/llm/client";
import { embedPendingQuestions } from "../../../workers/maintenance/question-vectors";
import { summariseHandler } from "../../../workers/tutor/summarise.handler";
import { databaseSuite } from "../../support/database";

interface Calls {
  chats: Array<{ context: CallContext; messages: ChatMessage[] }>;
  embeds: Array<{ texts: string[]; orgId: string | null | undefined }>;
}

function recordingModel(calls: Calls): LlmClient {
  return {
    chat: async (context: CallContext, messages: ChatMessage[]) => {
      calls.chats.push({ context, messages });
      return { content: "They discussed returns.", toolCalls: [], model: "fake", promptTokens: 10, completionTokens: 5 };
    },
    embed: async (texts: string[], _kind: string, context?: { orgId?: string | null }) => {
      calls.embeds.push({ texts, orgId: context?.orgId });
      return texts.map(() => [0.1, 0.2, 0.3]);
    },
  } as unknown as LlmClient;
}

describe("background model calls and the AI allowance (two organisations)", function () {
  const lane = databaseSuite(this);
  const db = () => lane.deps.db;
  let spent: { orgId: string; userId: string; sessionId: string };
  let open: { orgId: string; userId: string; sessionId: string };

  /** An organisation with an employee and a tutor session of `turns` answered questions, `newerBy` ms in the future of the other's. */
  async function seed(tag: string, turns: number, newerBy: number) {
    const org = await lane.build.buildOrg({ name: `Allowance ${tag}` });
    const person = await lane.build.buildPerson(org.id, { name: `Employee ${tag}` });
    const [session] = await db()("chat_sessions").insert({ org_id: org.id, user_id: person.id, agent_type: "tutor", title: tag }).returning("id");
    const start = Date.now() - 3_600_000 + newerBy;
    const rows = [];
    for (let i = 0; i < turns; i++) {
      const turnId = randomUUID();
      const at = (k: number) => new Date(start + i * 2_000 + k);
      rows.push(
        { org_id: org.id, session_id: session.id, turn_id: turnId, role: "user", content: `Question ${tag} ${i} about the returns policy`, created_at: at(0) },
        {
          org_id: org.id,
          session_id: session.id,
          turn_id: turnId,
          role: "assistant",
          content: `Answer ${tag} ${i}`,
          metadata: { intent: "cross_course" },
          created_at: at(1),
        },
      );
    }
    await db()("chat_messages").insert(rows);
    return { orgId: org.id, userId: person.id, sessionId: session.id as string };
  }

  before(async () => {
    open = await seed("open", 8, 0);
    spent = await seed("spent", 8, 60_000);
    await setMonthlyAllowance(lane.deps, { orgId: spent.orgId, monthlyTokens: 100, actorId: spent.userId });
    const usage = { useCase: "generation" as const, model: "fake", promptTokens: 90, completionTokens: 20, costUsd: 0, durationMs: 1, streamed: true };
    await insertUsage(db(), { ...usage, orgId: spent.orgId, userId: spent.userId, callKey: randomUUID() }, { defaultMonthlyTokens: 0 });
  });

  const summarise = (org: { orgId: string; sessionId: string }, calls: Calls) => {
    const deps = lane.workerDeps({ llm: recordingModel(calls) });
    const data = { orgId: org.orgId, sessionId: org.sessionId };
    return summariseHandler.perform({ data, deps, log: deps.log, job: { data } as never } as never);
  };

  it("refreshes no summary for the spent organisation, says why, and refreshes the other's", async () => {
    const calls: Calls = { chats: [], embeds: [] };
    expect(await summarise(spent, calls)).to.deep.equal({ skipped: "allowance exhausted" });
    expect(calls.chats, "no model call for the spent organisation").to.have.length(0);
    expect((await db()("chat_sessions").where({ id: spent.sessionId }).first()).summary).to.equal(null);

    expect(await summarise(open, calls)).to.deep.equal({ covers: 2 });
    expect(calls.chats.map((call) => call.context.orgId)).to.deep.equal([open.orgId]);
    expect((await db()("chat_sessions").where({ id: open.sessionId }).first()).summary).to.equal("They discussed returns.");
  });

  it("embeds no question of the spent organisation, even when its questions fill the batch, and embeds the other's", async () => {
    const calls: Calls = { chats: [], embeds: [] };
    // The spent organisation's 8 questions are the newest: alone they fill a batch of 5.
    const sweep = await embedPendingQuestions(lane.workerDeps({ llm: recordingModel(calls) }), 5);
    expect(sweep.allowanceSpent).to.deep.equal([spent.orgId]);
    expect(calls.embeds.map((call) => call.orgId)).to.not.include(spent.orgId);
    const vectorsOf = async (orgId: string) => Number((await db()("question_vectors").where({ org_id: orgId }).count("* as n"))[0]!.n);
    expect(await vectorsOf(spent.orgId)).to.equal(0);
    expect(await vectorsOf(open.orgId)).to.equal(5);
  });
});
