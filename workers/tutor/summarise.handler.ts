/**
 * `chat-summarise`: folds the turns that aged out of the raw window into the session's cached
 * summary, for tutor and admin sessions alike (each with its own prompt and speakers). Low
 * priority and off the critical path: a failure here never touches a turn. An organisation whose
 * AI allowance is spent gets no summary call (the job says so and ends).
 */
import { countSessionTurns, listRecentSessionMessages } from "../../db/queries/chat-messages";
import { findSessionInOrg, saveSummary } from "../../db/queries/chat-sessions";
import { spentAllowance } from "../allowance-check";
import { defineHandler } from "../registry";
import { adminSummaryPrompt } from "../admin/prompts";
import { RAW_TURNS, SPEAKERS, SUMMARY_MAX_TURNS, toTurns, transcript } from "../turns/history";
import { summaryPrompt } from "./prompts";

export const summariseHandler = defineHandler({
  queue: "chat-summarise",
  async perform({ data, deps, log }) {
    const session = await findSessionInOrg(deps.db, data.orgId, data.sessionId);
    if (!session) return { skipped: "session deleted" };
    const total = await countSessionTurns(deps.db, data.orgId, data.sessionId);
    const cover = total - RAW_TURNS;
    if (cover <= 0 || cover <= session.summary_turn_count) return { skipped: "nothing new aged out" };
    // Only the newest uncovered turns are read (SQL LIMIT): a session far ahead of its summary
    // catches up from its recent past instead of loading its whole history.
    const take = Math.min(cover - (session.summary ? session.summary_turn_count : 0), SUMMARY_MAX_TURNS);
    const turns = toTurns(await listRecentSessionMessages(deps.db, data.orgId, data.sessionId, (take + RAW_TURNS) * 2));
    const loadedFrom = total - turns.length;
    const fresh = turns.slice(Math.max(0, cover - take - loadedFrom), Math.max(0, cover - loadedFrom));
    // No model call on a spent allowance: the turns stay raw, and a later turn queues the refresh again.
    const spent = await spentAllowance(deps, data.orgId);
    if (spent) {
      log.info({ orgId: data.orgId, sessionId: data.sessionId, resetsAt: spent.resetsAt }, "summary not refreshed: the organisation's AI allowance is spent");
      return { skipped: "allowance exhausted" };
    }
    const prompt = session.agent_type === "admin" ? adminSummaryPrompt : summaryPrompt;
    const reply = await deps.llm.chat(
      { useCase: "summary", orgId: data.orgId, userId: session.user_id },
      [{ role: "user", content: prompt(transcript(fresh, SPEAKERS[session.agent_type]), session.summary) }],
      { maxTokens: 300, temperature: 0 },
    );
    const summary = reply.content.trim();
    if (!summary) throw new Error("the model returned an empty summary");
    await saveSummary(deps.db, data.orgId, data.sessionId, summary, cover);
    log.info({ covers: cover }, "session summary refreshed");
    return { covers: cover };
  },
});
