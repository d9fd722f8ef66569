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

const chats = (count: number): string => `${count} ${count === 1 ? "chat" : "chats"}`;

export function Retention() {
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
      setMessage({ kind: "notice", text: keepForever ? "Saved: chats are kept forever." : `Saved: chats idle for more than ${value} days will be deleted.` });
    } catch (caught) {
      setMessage({ kind: "alert", text: describeApiError(caught) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <ConsolePage label="Chat retention" name="retention">
      <h1>Chat retention</h1>
      <p class="hint">
        How long your organisation keeps its chats, tutor and assistant alike. A chat idle for longer is deleted with its messages, ratings and what the
        content-gap report learnt from it; usage figures stay for billing.
      </p>
      {message && (
        <p class={message.kind} role={message.kind === "alert" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      {saved === null ? (
        <p aria-live="polite">Loading…</p>
      ) : (
        <>
          <form
            class="settings-form"
            aria-label="Retention setting"
            onSubmit={(event) => {
              event.preventDefault();
              void save();
            }}
          >
            <label class="setting-check">
              <input type="radio" name="retention" checked={keepForever} onChange={() => setKeepForever(true)} /> Keep chats forever
            </label>
            <label class="setting-check">
              <input type="radio" name="retention" checked={!keepForever} onChange={() => setKeepForever(false)} /> Delete chats idle for more than{" "}
              <input
                name="days"
                class="days-input"
                type="text"
                inputMode="numeric"
                size={5}
                aria-label="Days"
                value={days}
                disabled={keepForever}
                onInput={(e) => setDays(e.currentTarget.value)}
              />{" "}
              days
            </label>
            <p class="actions">
              <button type="submit" disabled={busy}>
                Save
              </button>
            </p>
          </form>
          <section aria-label="Last sweep">
            <h2>Last sweep</h2>
            <p class="sweep-status">
              {saved.last_sweep
                ? `Last sweep ${new Date(saved.last_sweep.finished_at).toLocaleString()}: deleted ${chats(saved.last_sweep.sessions)} (${saved.last_sweep.messages} messages).`
                : "No sweep has run for this organisation yet."}
            </p>
            {saved.sweep_in_progress && (
              <p class="hint">
                A sweep started {new Date(saved.sweep_in_progress.started_at).toLocaleString()} is going on: {chats(saved.sweep_in_progress.sessions)} deleted
                so far.
              </p>
            )}
          </section>
        </>
      )}
    </ConsolePage>
  );
}
