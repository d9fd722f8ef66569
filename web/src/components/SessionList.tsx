/** The caller's sessions, most recent first: open one, start a new one, delete one. */
import type { SessionSummary } from "../lib/types";

export function SessionList({
  sessions,
  current,
  onOpen,
  onNew,
  onDelete,
  label,
}: {
  sessions: SessionSummary[];
  current: string | null;
  onOpen: (id: string) => void;
  onNew: () => void;
  onDelete: (session: SessionSummary) => void;
  label: string;
}) {
  return (
    <nav class="sessions" aria-label={label}>
      <button type="button" class="new-session" onClick={onNew}>
        + New chat
      </button>
      {sessions.length === 0 && <p class="hint">No conversations yet.</p>}
      <ul>
        {sessions.map((s) => (
          <li key={s.id} class={s.id === current ? "current" : ""}>
            <button type="button" class="session-open" aria-current={s.id === current ? "true" : undefined} onClick={() => onOpen(s.id)} title={s.title}>
              {s.title || "Untitled"}
            </button>
            <button type="button" class="session-delete" aria-label={`Delete conversation: ${s.title}`} title="Delete" onClick={() => onDelete(s)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
