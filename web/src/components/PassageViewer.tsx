/**
 * Opens what a citation points to: clicking [n] in an answer, or a source under it, shows the
 * passage the tutor was given (text, document, heading, page) and a button that opens the
 * original document. The server re-checks who may read it; a refusal is shown as such.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, fetchWithToken } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import type { PassageBody } from "../../../server/routes/passages/schema";
import "../insights.css";

function pages(p: PassageBody): string | null {
  if (p.page_start === null) return null;
  return p.page_end !== null && p.page_end !== p.page_start
    ? t("passage.pages", { from: p.page_start, to: p.page_end })
    : t("answer.page", { page: p.page_start });
}

/** The original is fetched with the bearer token (a plain link could not carry it) and opened as a blob. */
async function openOriginal(url: string): Promise<void> {
  const response = await fetchWithToken(url);
  if (!response.ok) throw new ApiError(response.status, "NOT_FOUND", t("passage.documentGone"));
  const blob = await response.blob();
  window.open(URL.createObjectURL(blob), "_blank", "noopener");
}

export function PassageViewer({ messageId, index, onClose }: { messageId: string; index: number; onClose: () => void }) {
  useT();
  const [passage, setPassage] = useState<PassageBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    setPassage(null);
    setError(null);
    api
      .get<PassageBody>(`/api/v1/chat/messages/${messageId}/passage?index=${index}`)
      .then(setPassage)
      .catch((caught) => setError(caught instanceof ApiError && caught.status === 404 ? t("passage.gone") : describeApiError(caught)));
  }, [messageId, index]);
  useEffect(() => panel.current?.focus(), [passage, error]);

  const where = passage ? [passage.heading, pages(passage)].filter(Boolean).join(" · ") : "";
  return (
    <section class="passage" aria-label={t("passage.label", { index })} tabIndex={-1} ref={panel} data-index={index}>
      <header>
        <strong>
          [{index}] {passage?.title ?? t("passage.source")}
        </strong>{" "}
        <button type="button" class="link-button" onClick={onClose}>
          {t("common.close")}
        </button>
      </header>
      {!passage && !error && <p class="hint">{t("passage.loading")}</p>}
      {error && <p class="alert">{error}</p>}
      {passage && (
        <>
          {where && <p class="passage-where">{where}</p>}
          <blockquote class="passage-text">{passage.text}</blockquote>
          {passage.truncated && <p class="hint">{t("passage.truncated")}</p>}
          {passage.original_url && (
            <button
              type="button"
              class="open-original"
              onClick={() => void openOriginal(passage.original_url!).catch((caught) => setError(describeApiError(caught)))}
            >
              {t("passage.openOriginal")}
            </button>
          )}
        </>
      )}
    </section>
  );
}

/** The index of a clicked `[n]` marker (an anchor to `#cite-<turnId>-<n>`), or null. */
export function citedIndex(target: EventTarget | null, turnId: string): number | null {
  const link = (target as HTMLElement | null)?.closest?.("a[href]");
  const match = link?.getAttribute("href")?.match(new RegExp(`^#cite-${turnId}-(\\d+)$`));
  return match ? Number(match[1]) : null;
}
