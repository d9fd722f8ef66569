/**
 * Chat retention: how long the organisation keeps its chats (forever, or N days after their last
 * activity), and what the last retention sweep deleted and when. Saving is audited; the sweep
 * runs in the workers every few minutes (docs/operations.md, "Chat retention").
 */
import { useEffect, useState } from "preact/hooks";
import type { RetentionBody } from "../../../server/routes/retention/schema";
import { ConsolePage } from "../components/ConsolePage";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatMoment, t, useT } from "../lib/i18n";

export function Retention() {
  useT();
  const [saved, setSaved] = useState<RetentionBody | null>(null);
  const [keepForever, setKeepForever] = useState(true);
  const [days, setDays] = useState("365");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "alert" | "notice"; text: string } | null>(null);

  const show = (body: RetentionBody): void => {
    setSaved(body);
    setKeepForever(body.chat_retention_days === null);
    if (body.chat_retention_days !== null) setDays(String(body.chat_retention_days));
  };
  useEffect(() => {
    api
      .get<RetentionBody>("/api/v1/admin/retention")
      .then(show)
      .catch((caught) => setMessage({ kind: "alert", text: describeApiError(caught) }));
  }, []);

  const save = async (): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      // The server checks the number (1 to 3650 whole days) and says what is wrong with it.
      const value = keepForever ? null : days.trim() === "" ? Number.NaN : Number(days);
      show(await api.put<RetentionBody>("/api/v1/admin/retention", { chat_retention_days: Number.isNaN(value) ? days : value }));
      setMessage({ kind: "notice", text: keepForever ? t("retention.savedForever") : t("retention.savedDays", { days: value }) });
    } catch (caught) {
      setMessage({ kind: "alert", text: describeApiError(caught) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ConsolePage label={t("retention.title")} name="retention">
      <h1>{t("retention.title")}</h1>
      <p class="hint">{t("retention.intro")}</p>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {saved === null ? (
        <p aria-live="polite">{t("common.loading")}</p>
      ) : (
        <>
          <form
            class="settings-form"
            aria-label={t("retention.setting")}
            onSubmit={(event) => {
              event.preventDefault();
              void save();
            }}
          >
            <label class="setting-check">
              <input type="radio" name="retention" checked={keepForever} onChange={() => setKeepForever(true)} /> {t("retention.forever")}
            </label>
            <label class="setting-check">
              <input type="radio" name="retention" checked={!keepForever} onChange={() => setKeepForever(false)} /> {t("retention.deleteAfter.before")}{" "}
              <input
                name="days"
                class="days-input"
                type="text"
                inputMode="numeric"
                size={5}
                aria-label={t("retention.days.label")}
                value={days}
                disabled={keepForever}
                onInput={(e) => setDays(e.currentTarget.value)}
              />{" "}
              {t("retention.deleteAfter.after")}
            </label>
            <p class="actions">
              <button type="submit" disabled={busy}>
                {t("common.save")}
              </button>
            </p>
          </form>
          <section aria-label={t("retention.lastSweep")}>
            <h2>{t("retention.lastSweep")}</h2>
            <p class="sweep-status">
              {saved.last_sweep
                ? t("retention.lastSweep.result", {
                    when: formatMoment(saved.last_sweep.finished_at),
                    chats: saved.last_sweep.sessions,
                    messages: saved.last_sweep.messages,
                  })
                : t("retention.noSweep")}
            </p>
            {saved.sweep_in_progress && (
              <p class="hint">{t("retention.sweeping", { when: formatMoment(saved.sweep_in_progress.started_at), chats: saved.sweep_in_progress.sessions })}</p>
            )}
          </section>
        </>
      )}
    </ConsolePage>
  );
}
