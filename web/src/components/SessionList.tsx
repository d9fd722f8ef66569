/** The caller's sessions, most recent first: open one, start a new one, delete one. */
import { useT } from "../lib/i18n";
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
  const { t } = useT();
  return (
    <nav class="sessions" aria-label={label}>
      <button type="button" class="new-session" onClick={onNew}>
        {t("sessions.new")}
      </button>
      {sessions.length === 0 && <p class="hint">{t("sessions.empty")}</p>}
      <ul>
        {sessions.map((s) => (
          <li key={s.id} class={s.id === current ? "current" : ""}>
            <button type="button" class="session-open" aria-current={s.id === current ? "true" : undefined} onClick={() => onOpen(s.id)} title={s.title}>
              {s.title || t("sessions.untitled")}
            </button>
            <button
              type="button"
              class="session-delete"
              aria-label={t("sessions.delete", { title: s.title })}
              title={t("common.delete")}
              onClick={() => onDelete(s)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
