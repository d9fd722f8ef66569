/**
 * What the upload queue is doing, in counts (waiting, uploading, done, failed), why it is
 * paused when the server's limit holds it back, and which files must be chosen again after a
 * reload (a page cannot keep files across one).
 */
import { useEffect, useState } from "preact/hooks";
import type { QueueView, UploadEntry, UploadState } from "./upload-queue";

const SHOWN_NAMES = 12;

function countOf(entries: UploadEntry[], state: UploadState): number {
  return entries.filter((entry) => entry.state === state).length;
}

function names(entries: UploadEntry[]): string {
  const shown = entries.slice(0, SHOWN_NAMES).map((entry) => entry.name);
  return entries.length > SHOWN_NAMES ? `${shown.join(", ")} and ${entries.length - SHOWN_NAMES} more` : shown.join(", ");
}

export function UploadQueuePanel({ view, onClear }: { view: QueueView; onClear: () => void }) {
  // A countdown while paused: re-render every second until the queue sends again.
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
    <section class="upload-queue" aria-label="Upload queue">
      <p class="queue-counts" role="status" data-waiting={counts.waiting} data-uploading={counts.uploading} data-done={counts.done} data-failed={counts.failed}>
        <span>Waiting {counts.waiting}</span> · <span>Uploading {counts.uploading}</span> · <span>Done {counts.done}</span>
        {duplicates > 0 && ` (${duplicates} already there)`} · <span>Failed {counts.failed}</span>
      </p>
      {pausedUntil && (
        <p class="hint queue-paused">
          The server's upload limit was reached: the next file goes in {Math.max(1, Math.ceil((pausedUntil - Date.now()) / 1000))} s. Keep this page open;
          nothing needs re-sending.
        </p>
      )}
      {reselect.length > 0 && (
        <div class="queue-reselect" role="alert" data-reselect={reselect.length}>
          <p>
            {reselect.length} {reselect.length === 1 ? "file was" : "files were"} not sent before the page was reloaded, and a page cannot keep files across a
            reload. Choose or drop {reselect.length === 1 ? "it" : "them"} again (the same folder is fine: files already sent are skipped):
          </p>
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
          Clear this list
        </button>
      )}
    </section>
  );
}
