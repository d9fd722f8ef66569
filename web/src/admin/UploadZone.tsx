/**
 * Upload by drag and drop or the file picker. The size and type limits (from GET /api/v1/me) are
 * shown before anything is sent, and a file that breaks them is refused here, without a request.
 */
import { useRef, useState } from "preact/hooks";
import { formatBytes } from "../lib/errors";
import { Msg, useT } from "../lib/i18n";

export function UploadZone({
  limits,
  onFiles,
}: {
  limits: { max_bytes: number; accepted_extensions: string[] };
  /** Files are queued (upload-queue.ts), so more may be added while others are still being sent. */
  onFiles: (files: File[]) => void;
}) {
  const { t } = useT();
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  return (
    <section
      class={`upload-zone ${over ? "over" : ""}`}
      aria-labelledby="upload-title"
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const files = [...(event.dataTransfer?.files ?? [])];
        if (files.length) onFiles(files);
      }}
    >
      <h2 id="upload-title">{t("upload.title")}</h2>
      <p>
        <Msg
          id="upload.drop"
          values={{
            choose: (chunks) => (
              <button type="button" class="link-button" onClick={() => input.current?.click()}>
                {chunks}
              </button>
            ),
          }}
        />
      </p>
      <p class="hint" id="upload-limits">
        {t("upload.limits", { size: formatBytes(limits.max_bytes) })} · {limits.accepted_extensions.join(" ")}
      </p>
      <input
        ref={input}
        id="upload-input"
        class="sr-only"
        type="file"
        multiple
        accept={limits.accepted_extensions.join(",")}
        aria-label={t("upload.choose")}
        aria-describedby="upload-limits"
        onChange={(event) => {
          const files = [...(event.currentTarget.files ?? [])];
          event.currentTarget.value = "";
          if (files.length) onFiles(files);
        }}
      />
    </section>
  );
}
