/** The message box: Enter sends, Shift+Enter makes a new line; Stop appears while an answer streams. */
import { useState } from "preact/hooks";
import { formatNumber, useT } from "../lib/i18n";

export const MAX_MESSAGE_CHARS = 10_000;

export function Composer({
  onSend,
  onStop,
  busy,
  streaming,
  placeholder,
}: {
  onSend: (text: string) => Promise<boolean>;
  onStop?: () => void;
  busy: boolean;
  streaming: boolean;
  placeholder: string;
}) {
  const { t } = useT();
  const [text, setText] = useState("");
  const tooLong = text.length > MAX_MESSAGE_CHARS;

  const submit = async (): Promise<void> => {
    const message = text.trim();
    if (!message || busy || tooLong) return;
    setText("");
    // Refused (rate limited, invalid): give the text back so nothing typed is lost.
    if (!(await onSend(message))) setText(message);
  };

  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label for="message-input" class="sr-only">
        {t("composer.message")}
      </label>
      <textarea
        id="message-input"
        rows={2}
        value={text}
        placeholder={placeholder}
        aria-describedby={tooLong ? "message-too-long" : undefined}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void submit();
          }
        }}
      />
      {tooLong && (
        <p id="message-too-long" class="alert" role="alert">
          {t("composer.tooLong", { max: formatNumber(MAX_MESSAGE_CHARS), now: formatNumber(text.length) })}
        </p>
      )}
      <div class="composer-actions">
        {streaming && onStop && (
          <button type="button" class="stop" onClick={onStop}>
            {t("composer.stop")}
          </button>
        )}
        <button type="submit" disabled={busy || !text.trim() || tooLong}>
          {t("common.send")}
        </button>
      </div>
    </form>
  );
}
