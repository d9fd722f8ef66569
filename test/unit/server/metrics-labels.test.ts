/**
 * Issue 30, point 3: no metric label takes its value from model output. A tool name the model
 * made up (or any value outside a fixed set) is counted under "other", so a model cannot mint
 * series; the fixed set is exactly the admin assistant's tools.
 */
import { expect } from "chai";
import { ADMIN_TOOL_NAMES, type TurnEventEnvelope } from "../../../queues/events/contract";
import type { JobProducer } from "../../../queues/producer";
import { ServerMetrics } from "../../../server/metrics";
import { ADMIN_TOOLS } from "../../../workers/admin/tools";
import { parseExposition, total } from "../../server/metrics-helpers";

const envelope = (event: TurnEventEnvelope["event"], data: Record<string, unknown>): TurnEventEnvelope =>
  ({ room: "session:s", event, seq: 1, data: { sessionId: "s", turnId: "t", ...data } }) as unknown as TurnEventEnvelope;

describe("metric labels from turn events", () => {
  it("label tool calls only with the assistant's own tool names; made-up names count as 'other'", async () => {
    const metrics = new ServerMetrics({ producer: { allQueues: () => [] } as unknown as JobProducer });
    metrics.observeTurnEvent(envelope("tool_result", { callId: "1", tool: "who_knows", ok: true, resultBytes: 10, ms: 1 }));
    for (let i = 0; i < 50; i++) {
      metrics.observeTurnEvent(envelope("tool_result", { callId: String(i), tool: `drop_database_${i}`, ok: false, resultBytes: 10, ms: 1 }));
    }
    metrics.observeTurnEvent(envelope("action_done", { status: "exploded", done: 0, failed: 0, total: 0, failedItems: [] }));
    metrics.observeTurnEvent(envelope("done", { messageId: "m", tokensUsed: 1, retrievalSource: "made_up", retrievalLatencyMs: 1, generationLatencyMs: 1 }));
    const text = await metrics.registry.metrics();
    const scraped = parseExposition(text);
    expect(total(scraped, "skillnet_admin_tool_calls_total", { tool: "who_knows", ok: "true" })).to.equal(1);
    expect(total(scraped, "skillnet_admin_tool_calls_total", { tool: "other", ok: "false" })).to.equal(50);
    expect(total(scraped, "skillnet_admin_actions_total", { status: "other" })).to.equal(1);
    expect(text).to.not.match(/drop_database|exploded|made_up/);
    const toolSeries = [...scraped.samples.keys()].filter((series) => series.startsWith("skillnet_admin_tool_calls_total"));
    expect(toolSeries).to.have.length(2);
  });

  it("the fixed set of tool names is exactly the admin assistant's tools", () => {
    expect(ADMIN_TOOLS.map((tool) => tool.name)).to.have.members([...ADMIN_TOOL_NAMES]);
    expect(ADMIN_TOOLS).to.have.length(ADMIN_TOOL_NAMES.length);
  });
});
