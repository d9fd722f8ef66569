/**
 * `chat-summarise`: folds the turns that aged out of the raw window into the session's cached
 * summary. Low priority and off the critical path: a failure here never touches a turn.
 */
import { findSessionInOrg, saveSummary } from "../../db/queries/chat-sessions";
import { defineHandler } from "../registry";
import { RAW_TURNS, toTurns, transcript } from "./history";
import { summaryPrompt } from "./prompts";

export const summariseHandler = defineHandler({
  queue: "chat-summarise",
  async perform({ data, deps, log }) {
    const session = await findSessionInOrg(deps.db, data.orgId, data.sessionId);
    if (!session) return { skipped: "session deleted" };
    const messages = await deps.db("chat_messages").where({ org_id: data.orgId, session_id: data.sessionId, status: "complete" }).orderBy([{ column: "created_at" }, { column: "role", order: "desc" }]);
    const turns = toTurns(messages);
    const cover = turns.length - RAW_TURNS;
    if (cover <= 0 || cover <= session.summary_turn_count) return { skipped: "nothing new aged out" };
    const fresh = turns.slice(session.summary ? session.summary_turn_count : 0, cover);
    const reply = await deps.llm.chat({ useCase: "summary", orgId: data.orgId, userId: session.user_id }, [{ role: "user", content: summaryPrompt(transcript(fresh), session.summary) }], { maxTokens: 300, temperature: 0 });
    const summary = reply.content.trim();
    if (!summary) throw new Error("the model returned an empty summary");
    await saveSummary(deps.db, data.orgId, data.sessionId, summary, cover);
    log.info({ covers: cover }, "session summary refreshed");
    return { covers: cover };
  },
});
