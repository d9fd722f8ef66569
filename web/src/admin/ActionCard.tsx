/**
 * A write the assistant proposed: preview, item count, estimate and Confirm / Reject while it is
 * pending; once confirmed, a checklist of its items that fills in live (action events to the
 * admin's user room, replayed with `watch_action` after a reconnect), with Stop while it is queued
 * or running; Resume after a partial, failed or stopped run. A stopped card says exactly what the
 * stop left: "Stopped after 340 of 2,000: 340 done, 1,660 not run."
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import type { LiveSocket } from "../lib/socket";
import type { ActionItemState, PendingAction } from "../lib/types";
import { Icon } from "../components/Icon";

interface ActionDetail {
  action: {
    id: string;
    tool: string;
    status: string;
    preview: string;
    total: number;
    done: number;
    failed: number;
    not_run: number;
    estimate: PendingAction["estimate"];
    expires_at: string;
  };
  items: ActionItemState[];
}

interface ActionEvent {
  actionId: string;
  seq: number;
  status?: string;
  done?: number;
  failed?: number;
  total?: number;
}

const FINAL = new Set(["completed", "partial", "failed", "stopped", "rejected", "expired"]);
const RUNNING = new Set(["confirmed", "running"]);

/** The same sentence the assistant writes when a stop is typed in the chat (workers/admin/replies.ts). */
function stoppedSummary(action: { total: number; done: number; failed: number; not_run: number }): string {
  return t("action.stoppedSummary", {
    reached: action.done + action.failed,
    total: action.total,
    done: action.done,
    failed: action.failed,
    notRun: action.not_run,
  });
}

export function ActionCard({
  actionId,
  pending,
  live,
  onSettled,
}: {
  actionId: string;
  pending?: PendingAction;
  live: LiveSocket;
  /** Called once the action is no longer pending (confirmed, rejected, running, finished…). */
  onSettled?: (actionId: string) => void;
}) {
  useT();
  const [detail, setDetail] = useState<ActionDetail | null>(null);
  const [status, setStatus] = useState<string>("pending");
  const [counts, setCounts] = useState<{ done: number; failed: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const lastSeq = useRef(0);
  /** Loads overlap (one per event): only the newest one's answer is drawn, never an older one landing last. */
  const newestLoad = useRef(0);
  useEffect(() => {
    if (status !== "pending") onSettled?.(actionId);
  }, [status, actionId]);

  /** A final status an event announced, drawn by the reload that follows it, or by itself should that reload fail. */
  const announcedEnd = useRef<string | null>(null);
  const load = async (): Promise<void> => {
    const mine = ++newestLoad.current;
    try {
      const fresh = await api.get<ActionDetail>(`/api/v1/admin/actions/${actionId}`);
      if (mine !== newestLoad.current) return;
      setDetail(fresh);
      setStatus(fresh.action.status);
      setCounts({ done: fresh.action.done, failed: fresh.action.failed, total: fresh.action.total });
    } catch (caught) {
      if (mine !== newestLoad.current) return;
      // The end is known even if its items are not: never leave the card saying "running" after the run.
      if (announcedEnd.current) setStatus(announcedEnd.current);
      setError(describeApiError(caught));
    }
  };

  useEffect(() => {
    void load();
    const onEvent = (event: ActionEvent): void => {
      if (event.actionId !== actionId || event.seq <= lastSeq.current) return;
      lastSeq.current = event.seq;
      // A run's end is drawn with its items (the load below), so the card never says "partial" over a checklist still running.
      if (event.status && FINAL.has(event.status)) announcedEnd.current = event.status;
      else if (event.status) setStatus(event.status);
      if (event.total !== undefined) setCounts({ done: event.done ?? 0, failed: event.failed ?? 0, total: event.total });
      // Each batch or end: the items' own statuses for the checklist.
      void load();
    };
    const names = ["action_status", "action_progress", "action_done"];
    for (const name of names) live.socket.on(name, onEvent);
    // Many cards watching at once can meet the socket's event limit: a limited call is sent again when the server says.
    let retry: ReturnType<typeof setTimeout> | undefined;
    const watch = (): void => {
      live.socket.emit("watch_action", { actionId, lastSeq: lastSeq.current }, (ack?: { ok: boolean; error?: { code: string; retryAfter?: number } }) => {
        if (ack?.error?.code === "RATE_LIMITED") retry = setTimeout(watch, (ack.error.retryAfter ?? 1) * 1000);
      });
    };
    const stopWatching = live.onConnect(watch);
    return () => {
      for (const name of names) live.socket.off(name, onEvent);
      clearTimeout(retry);
      stopWatching();
    };
  }, [actionId, live]);

  const act = async (verb: "confirm" | "reject" | "resume" | "stop"): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/api/v1/admin/actions/${actionId}/${verb}`);
      await load();
    } catch (caught) {
      setError(describeApiError(caught));
      await load();
    } finally {
      setBusy(false);
    }
  };

  const preview = detail?.action.preview ?? pending?.preview ?? "";
  const total = detail?.action.total ?? pending?.total ?? 0;
  const estimate = detail?.action.estimate ?? pending?.estimate;
  const items: Array<{ position: number; label: string; status?: string; error?: string | null }> = detail?.items ?? pending?.items ?? [];
  const showChecklist = status !== "pending" && status !== "rejected" && status !== "expired";

  return (
    <section class={`action-card status-${status}`} aria-label={t("action.label")} data-action-id={actionId}>
      <header>
        <span class="badge">{detail?.action.tool ?? pending?.tool}</span>
        <span class="action-status" data-status={status}>
          {t("action.status", { status })}
        </span>
      </header>
      <p class="action-preview">{preview}</p>
      <p class="hint">
        {t("action.items", { total })}
        {estimate ? ` · ${t("action.estimate", { writes: estimate.writes, seconds: Math.max(1, Math.round(estimate.seconds)) })}` : ""}
        {counts && showChecklist ? ` · ${t("action.progress", { done: counts.done, failed: counts.failed })}` : ""}
      </p>
      <ol class={showChecklist ? "checklist" : "item-preview"}>
        {items.map((item) => (
          <li key={item.position} class={`item ${item.status ?? ""}`} data-status={item.status}>
            <span class="item-mark" aria-hidden="true">
              {item.status === "done" ? (
                <Icon name="check" />
              ) : item.status === "failed" ? (
                <Icon name="cross" />
              ) : item.status === "running" ? (
                "…"
              ) : (
                <Icon name="circle" />
              )}
            </span>
            <span>{item.label}</span>
            {item.status && showChecklist && <span class="sr-only"> ({t("action.status", { status: item.status })})</span>}
            {item.error && <span class="item-error"> — {item.error}</span>}
          </li>
        ))}
      </ol>
      {error && (
        <p class="alert" role="alert">
          {error}
        </p>
      )}
      <div class="action-buttons">
        {status === "pending" && (
          <>
            <button type="button" class="primary" disabled={busy} onClick={() => void act("confirm")}>
              {t("common.confirm")}
            </button>
            <button type="button" disabled={busy} onClick={() => void act("reject")}>
              {t("action.reject")}
            </button>
          </>
        )}
        {RUNNING.has(status) && (
          <button type="button" class="danger" disabled={busy} onClick={() => void act("stop")}>
            {t("composer.stop")}
          </button>
        )}
        {(status === "partial" || status === "failed") && (
          <button type="button" disabled={busy} onClick={() => void act("resume")}>
            {t("action.resumeFailed")}
          </button>
        )}
        {status === "stopped" && (
          <button type="button" disabled={busy} onClick={() => void act("resume")}>
            {t("action.resume")}
          </button>
        )}
      </div>
      {status === "stopped" && detail?.action.status === "stopped" && (
        <p class="hint action-summary" role="status">
          {stoppedSummary(detail.action)}
        </p>
      )}
      {FINAL.has(status) && status !== "rejected" && status !== "expired" && status !== "stopped" && (
        <p class="hint">{t("action.finished", { status: t("action.status", { status }) })}</p>
      )}
    </section>
  );
}
