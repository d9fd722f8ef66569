/** Pieces of an answer: the grounding badge, the numbered citations and the suggestion chips. */
import type { Citation, Rung } from "../lib/types";

const RUNG_LABELS: Record<Rung, { label: string; title: string }> = {
  chunks: { label: "company source", title: "Answered from passages of your company's material" },
  document: { label: "whole document", title: "Answered from one whole company document" },
  general: { label: "general knowledge", title: "No company material matched: answered from general knowledge" },
};

export function RungBadge({ rung }: { rung: Rung }) {
  const info = RUNG_LABELS[rung];
  return (
    <span class={`badge rung-${rung}`} title={info.title} data-rung={rung}>
      {info.label}
    </span>
  );
}

export const citationAnchor = (turnId: string, index: number): string => `cite-${turnId}-${index}`;

/** `onOpen` (answers stored with a message id) makes each source open its passage. */
export function Citations({ turnId, citations, onOpen }: { turnId: string; citations: Citation[]; onOpen?: (index: number) => void }) {
  if (citations.length === 0) return null;
  return (
    <section class="citations" aria-label="Sources">
      <h3>Sources</h3>
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
            {c.page ? <span class="page"> · p. {c.page}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

export function Suggestions({ suggestions, onPick, disabled }: { suggestions: string[]; onPick: (text: string) => void; disabled?: boolean }) {
  if (suggestions.length === 0) return null;
  return (
    <div class="suggestions" role="group" aria-label="Suggested follow-ups">
      {suggestions.map((s) => (
        <button type="button" class="chip" key={s} disabled={disabled} onClick={() => onPick(s)}>
          {s}
        </button>
      ))}
    </div>
  );
}
