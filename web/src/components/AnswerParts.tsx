/** Pieces of an answer: the grounding badge, the numbered citations and the suggestion chips. */
import type { GroundingOrigin } from "../lib/grounding-origin";
import { useT } from "../lib/i18n";
import type { Citation, Rung } from "../lib/types";

const RUNG_LABELS = {
  chunks: { label: "rung.chunks", title: "rung.chunks.title" },
  document: { label: "rung.document", title: "rung.document.title" },
  general: { label: "rung.general", title: "rung.general.title" },
} as const satisfies Record<Rung, { label: string; title: string }>;

/** Passages answered from a file the employee attached are theirs, not the company's: the badge says so. */
const PASSAGE_ORIGIN_LABELS = {
  company: RUNG_LABELS.chunks,
  file: { label: "rung.chunks.file", title: "rung.chunks.file.title" },
  mixed: { label: "rung.chunks.mixed", title: "rung.chunks.mixed.title" },
} as const satisfies Record<GroundingOrigin, { label: string; title: string }>;

/** `origin`, on the passages rung: whose material the passages were (company, the employee's file, or both). */
export function RungBadge({ rung, origin = "company" }: { rung: Rung; origin?: GroundingOrigin }) {
  const { t } = useT();
  const info = rung === "chunks" ? PASSAGE_ORIGIN_LABELS[origin] : RUNG_LABELS[rung];
  return (
    <span
      class={`badge rung-${rung}${rung === "chunks" && origin !== "company" ? ` origin-${origin}` : ""}`}
      title={t(info.title)}
      data-rung={rung}
      data-origin={rung === "chunks" ? origin : undefined}
    >
      {t(info.label)}
    </span>
  );
}

export const citationAnchor = (turnId: string, index: number): string => `cite-${turnId}-${index}`;

/**
 * `onOpen` (answers stored with a message id) makes each source open its passage. A file the
 * employee attached is marked as theirs; beside one, company material is marked as the company's.
 */
export function Citations({ turnId, citations, onOpen }: { turnId: string; citations: Citation[]; onOpen?: (index: number) => void }) {
  const { t } = useT();
  if (citations.length === 0) return null;
  const citesFile = citations.some((c) => c.sourceType === "attachment");
  return (
    <section class="citations" aria-label={t("answer.sources")}>
      <h3>{t("answer.sources")}</h3>
      <ol>
        {citations.map((c) => (
          <li key={c.index} id={citationAnchor(turnId, c.index)} value={c.index} tabIndex={-1}>
            {onOpen ? (
              <button type="button" class="cite-open doc" onClick={() => onOpen(c.index)}>
                {c.document}
              </button>
            ) : (
              <span class="doc">{c.document}</span>
            )}
            {c.section ? <span class="section"> · {c.section}</span> : null}
            {c.page ? <span class="page"> · {t("answer.page", { page: c.page })}</span> : null}
            {c.sourceType === "attachment" ? (
              <span class="source-origin file" data-origin="file">
                {" "}
                · {t("answer.source.yourFile")}
              </span>
            ) : citesFile ? (
              <span class="source-origin company" data-origin="company">
                {" "}
                · {t("answer.source.company")}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

export function Suggestions({ suggestions, onPick, disabled }: { suggestions: string[]; onPick: (text: string) => void; disabled?: boolean }) {
  const { t } = useT();
  if (suggestions.length === 0) return null;
  return (
    <div class="suggestions" role="group" aria-label={t("answer.suggestions")}>
      {suggestions.map((s) => (
        <button type="button" class="chip" key={s} disabled={disabled} onClick={() => onPick(s)}>
          {s}
        </button>
      ))}
    </div>
  );
}
