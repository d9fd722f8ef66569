/**
 * This turn's proposal: what the write tools' `propose` stores and announces (`action_pending`).
 * A turn proposes at most once. What an earlier attempt of the turn proposed (handed back or
 * failed after proposing) is carried over and given back unchanged, never re-proposed, and
 * stands even if the model does not ask for it again.
 */
import { proposeAction } from "../../commands/action-run";
import { findActionOfTurn, listActionItems, type AdminActionRow } from "../../db/queries/admin-actions";
import type { WorkerDeps } from "../deps";
import type { TurnEmitter } from "../turns/turn-emitter";
import { estimateWork, type ProposedAction } from "./tools/proposal";
import { actionEstimate, type ActionEstimate } from "../../db/queries/json-columns";
import type { StoredProposal } from "./tools/tool";
import type { AdminTurnContext } from "./turn-context";

/** How many frozen item labels the action card shows. */
const SHOWN_ITEMS = 20;

export class TurnProposals {
  /** The proposal this turn stands behind, once there is one. */
  proposed: AdminActionRow | undefined;
  /** Its first frozen labels. */
  labels: string[] = [];

  private constructor(
    private readonly deps: WorkerDeps,
    private readonly turn: AdminTurnContext,
    private readonly events: TurnEmitter,
    private readonly carried: AdminActionRow | undefined,
  ) {}

  static async load(deps: WorkerDeps, turn: AdminTurnContext, events: TurnEmitter): Promise<TurnProposals> {
    return new TurnProposals(deps, turn, events, await findActionOfTurn(deps.db, turn.orgId, turn.turnId));
  }

  /** The write tools' `propose`: stores the action as pending (or gives back the carried one) and announces it. */
  async propose(action: ProposedAction): Promise<StoredProposal> {
    if (this.carried) {
      await this.takeCarried();
      // Shown again: the client dropped what the earlier attempt streamed when it saw `restart`.
      if (this.carried.status === "pending") await this.announce(this.carried, actionEstimate.parse(this.carried.estimate));
      return stored(this.carried, this.labels);
    }
    const { deps, turn } = this;
    const estimate = estimateWork(action.items);
    const row = await proposeAction(deps, {
      orgId: turn.orgId,
      userId: turn.userId,
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      tool: action.tool,
      args: action.args,
      preview: action.preview,
      estimate,
      expiresAt: new Date(Date.now() + deps.config.admin.ADMIN_ACTION_TTL_SECONDS * 1000),
      items: action.items,
    });
    this.proposed = row;
    this.labels = action.items.slice(0, SHOWN_ITEMS).map((item) => item.label);
    await this.announce(row, estimate);
    return stored(row, this.labels);
  }

  /** After the model's rounds: the earlier attempt's pending proposal stands even if the model did not ask for it again: shown, not dropped. */
  async keepCarried(): Promise<void> {
    if (this.proposed || this.carried?.status !== "pending") return;
    await this.takeCarried();
    await this.announce(this.carried, actionEstimate.parse(this.carried.estimate));
  }

  private async takeCarried(): Promise<void> {
    const carried = this.carried!;
    this.proposed = carried;
    this.labels = (await listActionItems(this.deps.db, carried.org_id, carried.id)).slice(0, SHOWN_ITEMS).map((item) => item.label);
  }

  private async announce(row: AdminActionRow, estimate: ActionEstimate): Promise<void> {
    await this.events.emit("action_pending", {
      actionId: row.id,
      tool: row.tool,
      preview: row.preview,
      total: row.total,
      items: this.labels.slice(0, SHOWN_ITEMS).map((label, position) => ({ position, label })),
      // A row without a readable estimate (an older release's) still shows its size.
      estimate: estimate ?? { items: row.total, writes: 0, seconds: 0 },
      expiresAt: row.expires_at.toISOString(),
    });
  }
}

function stored(row: AdminActionRow, labels: string[]): StoredProposal {
  return { actionId: row.id, status: row.status, preview: row.preview, total: row.total, labels, expiresAt: row.expires_at.toISOString() };
}
