/**
 * Thumbs up or down under an answer, with an optional comment on a thumbs down. The session's
 * ratings are read once when it opens; rating again replaces the earlier one.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { useT } from "../lib/i18n";
import { Icon } from "./Icon";
import "../insights.css";

type Rating = "up" | "down";
interface StoredFeedback {
  message_id: string;
  rating: Rating;
  comment: string | null;
}

/** messageId → rating for the open session. */
export function useSessionFeedback(sessionId: string | null) {
  const [ratings, setRatings] = useState<Record<string, Rating>>({});
  useEffect(() => {
    setRatings({});
    if (!sessionId) return;
    api
      .get<{ feedback: StoredFeedback[] }>(`/api/v1/chat/sessions/${sessionId}/feedback`)
      .then((body) => setRatings(Object.fromEntries(body.feedback.map((f) => [f.message_id, f.rating]))))
      .catch(() => undefined);
  }, [sessionId]);
  return { ratings, remember: (messageId: string, rating: Rating) => setRatings((all) => ({ ...all, [messageId]: rating })) };
}

export function FeedbackThumbs({ messageId, rating, onRated }: { messageId: string; rating?: Rating; onRated: (rating: Rating) => void }) {
  const { t } = useT();
  const [asking, setAsking] = useState(false);
  const [comment, setComment] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [thanked, setThanked] = useState(false);

  // A thumbs down is stored at once; the comment form stays open to add why.
  const send = async (value: Rating, note?: string, done = true): Promise<void> => {
    setError(null);
    try {
      await api.post(`/api/v1/chat/messages/${messageId}/feedback`, { rating: value, ...(note ? { comment: note } : {}) });
      onRated(value);
      setThanked(true);
      if (done) setAsking(false);
    } catch (caught) {
      setError(describeApiError(caught));
    }
  };

  return (
    <div class="feedback" role="group" aria-label={t("feedback.rate")}>
      <button type="button" class="thumb" aria-pressed={rating === "up"} title={t("feedback.helpful")} onClick={() => void send("up")}>
        <Icon name="thumbs-up" />
        <span class="sr-only">{t("feedback.helpful")}</span>
      </button>
      <button
        type="button"
        class="thumb"
        aria-pressed={rating === "down"}
        title={t("feedback.notHelpful")}
        onClick={() => {
          setAsking(true);
          void send("down", undefined, false);
        }}
      >
        <Icon name="thumbs-down" />
        <span class="sr-only">{t("feedback.notHelpful")}</span>
      </button>
      {thanked && !asking && <span class="feedback-thanks">{t("feedback.thanks")}</span>}
      {asking && (
        <form
          class="feedback-comment"
          onSubmit={(event) => {
            event.preventDefault();
            void send("down", comment.trim());
          }}
        >
          <label>
            {t("feedback.whatMissing")}
            <textarea maxLength={1000} value={comment} onInput={(e) => setComment((e.target as HTMLTextAreaElement).value)} />
          </label>
          <button type="submit">{t("common.send")}</button>
        </form>
      )}
      {error && <span class="alert">{error}</span>}
    </div>
  );
}
