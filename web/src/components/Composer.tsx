/**
 * The message box: Enter sends, Shift+Enter makes a new line; Stop appears while an answer
 * streams. With `attachments` (the tutor), files are attached by the paperclip or dropped on the
 * box, each shown as a chip with its state; Send waits until every file is read.
 */
import { useState } from "preact/hooks";
import { formatNumber, useT } from "../lib/i18n";
import { ALLOWED_EXTENSIONS } from "../../../lib/document-formats";
import type { Attachments } from "../lib/use-attachments";
import { Icon } from "./Icon";

export const MAX_MESSAGE_CHARS = 10_000;

export function Composer({
  onSend,
  onStop,
  busy,
  streaming,
  placeholder,
  attachments,
}: {
  onSend: (text: string) => Promise<boolean>;
  onStop?: () => void;
  busy: boolean;
  streaming: boolean;
  placeholder: string;
  attachments?: Attachments;
}) {
  const { t } = useT();
  const [text, setText] = useState("");
  const tooLong = text.length > MAX_MESSAGE_CHARS;

  const submit = async (): Promise<void> => {
    const message = text.trim();
    if (!message || busy || tooLong || attachments?.pending) return;
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
      onDragOver={(event) => attachments && event.preventDefault()}
      onDrop={(event) => {
        if (!attachments) return;
        event.preventDefault();
        void attachments.add([...(event.dataTransfer?.files ?? [])]);
      }}
    >
      {attachments && attachments.chips.length > 0 && (
        <ul class="attachment-chips" aria-label={t("attachments.list")}>
          {attachments.chips.map((chip) => (
            <li key={chip.key} class={`attachment-chip ${chip.status}`} data-status={chip.status}>
              <span class="attachment-name">{chip.filename}</span>{" "}
              <span class="attachment-state">
                {chip.status === "failed" ? t("attachments.failed", { reason: chip.reason ?? "" }) : t(`attachments.status.${chip.status}`)}
              </span>
              <button type="button" class="link" aria-label={t("attachments.remove", { name: chip.filename })} onClick={() => attachments.remove(chip.key)}>
                <Icon name="cross" />
              </button>
            </li>
          ))}
        </ul>
      )}
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
        {attachments && (
          <label class="attach-file">
            <Icon name="paperclip" />
            <span class="sr-only">{t("attachments.attach")}</span>
            <input
              type="file"
              multiple
              accept={ALLOWED_EXTENSIONS.join(",")}
              class="sr-only"
              onChange={(event) => {
                const input = event.currentTarget;
                void attachments.add([...(input.files ?? [])]);
                input.value = "";
              }}
            />
          </label>
        )}
        {streaming && onStop && (
          <button type="button" class="stop" onClick={onStop}>
            {t("composer.stop")}
          </button>
        )}
        <button type="submit" disabled={busy || !text.trim() || tooLong || attachments?.pending}>
          {t("common.send")}
        </button>
      </div>
    </form>
  );
}
