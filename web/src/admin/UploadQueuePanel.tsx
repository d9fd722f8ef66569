/**
 * What the upload queue is doing, in counts (waiting, uploading, done, failed), why it is
 * paused when the server's limit holds it back, and which files must be chosen again after a
 * reload (a page cannot keep files across one).
 */
import { useEffect, useState } from "preact/hooks";
import { t, useT } from "../lib/i18n";
import type { QueueView, UploadEntry, UploadState } from "./upload-queue";

const SHOWN_NAMES = 12;

function countOf(entries: UploadEntry[], state: UploadState): number {
  return entries.filter((entry) => entry.state === state).length;
}

function names(entries: UploadEntry[]): string {
  const shown = entries.slice(0, SHOWN_NAMES).map((entry) => entry.name);
  return entries.length > SHOWN_NAMES ? t("queue.andMore", { names: shown.join(", "), more: entries.length - SHOWN_NAMES }) : shown.join(", ");
}

export function UploadQueuePanel({ view, onClear }: { view: QueueView; onClear: () => void }) {
  // A countdown while paused: re-render every second until the queue sends again.
  useT();
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!view.pausedUntil) return;
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, [view.pausedUntil]);

  const { entries, pausedUntil } = view;
  if (entries.length === 0) return null;
  const counts = {
    waiting: countOf(entries, "waiting"),
    uploading: countOf(entries, "uploading"),
    done: countOf(entries, "done"),
    failed: countOf(entries, "failed"),
    reselect: countOf(entries, "reselect"),
  };
  const failed = entries.filter((entry) => entry.state === "failed");
  const reselect = entries.filter((entry) => entry.state === "reselect");
  const duplicates = entries.filter((entry) => entry.note === "duplicate").length;
  const busy = counts.waiting + counts.uploading > 0;
  return (
    <section class="upload-queue" aria-label={t("queue.label")}>
      <p class="queue-counts" role="status" data-waiting={counts.waiting} data-uploading={counts.uploading} data-done={counts.done} data-failed={counts.failed}>
        <span>{t("queue.waiting", { count: counts.waiting })}</span> · <span>{t("queue.uploading", { count: counts.uploading })}</span> ·{" "}
        <span>{t("queue.done", { count: counts.done })}</span>
        {duplicates > 0 && ` (${t("queue.duplicates", { count: duplicates })})`} · <span>{t("queue.failed", { count: counts.failed })}</span>
      </p>
      {pausedUntil && <p class="hint queue-paused">{t("queue.paused", { seconds: Math.max(1, Math.ceil((pausedUntil - Date.now()) / 1000)) })}</p>}
      {reselect.length > 0 && (
        <div class="queue-reselect" role="alert" data-reselect={reselect.length}>
          <p>{t("queue.reselect", { count: reselect.length })}</p>
          <p class="queue-names">{names(reselect)}</p>
        </div>
      )}
      {failed.length > 0 && (
        <ul class="queue-failed">
          {failed.map((entry) => (
            <li key={entry.key}>
              {entry.name}: {entry.note}
            </li>
          ))}
        </ul>
      )}
      {!busy && (
        <button type="button" class="link-button" onClick={onClear}>
          {t("queue.clear")}
        </button>
      )}
    </section>
  );
}
