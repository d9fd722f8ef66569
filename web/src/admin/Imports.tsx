/**
 * Bulk catalog imports of the organisation's integrations (POST /api/v1/integrations/catalog/
 * imports): each with where it stands, what it created, updated, kept and deleted, and the records
 * it refused with their line and reason. Running imports move live (`catalog_import` on the
 * admin's socket); after a reconnection the list is read again, since missed events are not replayed.
 */
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ConsolePage } from "../components/ConsolePage";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatMoment, type MessageId, Msg, t, useT } from "../lib/i18n";
import type { LiveSocket } from "../lib/socket";
import type { CatalogImportEvent } from "../../../queues/events/contract";
import type { CatalogImportBody } from "../../../server/routes/catalog/schema";
import "../insights.css";

interface Problem {
  line: number;
  code: string;
  message: string;
}

const when = (value: string | null): string => (value ? formatMoment(value) : "—");

const STATUS_LABEL: Record<CatalogImportBody["status"], MessageId> = {
  receiving: "imports.status.receiving",
  received: "imports.status.received",
  applying: "imports.status.applying",
  completed: "imports.status.completed",
  failed: "imports.status.failed",
};

function outcome(item: CatalogImportBody): string {
  if (item.status === "failed") return item.error ?? t("imports.status.failed");
  if (item.status !== "completed") return item.total === null ? t("imports.reading") : t("imports.progress", { done: item.done, total: item.total });
  if (!item.changed) return t("imports.unchanged", { unchanged: item.counts.unchanged, failed: item.counts.failed });
  return t("imports.counts", { ...item.counts });
}

/** "and N more": refused records past the first ones kept, which the import only counted (per code). */
function OmittedProblems({ omitted }: { omitted: CatalogImportBody["problems_omitted"] }) {
  if (omitted.total === 0) return null;
  const byCode = Object.entries(omitted.by_code)
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");
  return <p class="import-omitted">{t("imports.omitted", { total: omitted.total, byCode })}</p>;
}

function ProblemList({ importId, omitted }: { importId: string; omitted: CatalogImportBody["problems_omitted"] }) {
  useT();
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = (after: number): void => {
    api
      .get<{ problems: Problem[]; next_after_line: number | null }>(`/api/v1/admin/catalog-imports/${importId}?after_line=${after}&limit=100`)
      .then((page) => {
        setProblems((shown) => [...(after === 0 ? [] : (shown ?? [])), ...page.problems]);
        setNext(page.next_after_line);
      })
      .catch((caught) => setError(describeApiError(caught)));
  };
  useEffect(() => load(0), [importId]);
  if (error) return <p class="alert">{error}</p>;
  if (!problems) return <p>{t("common.loading")}</p>;
  if (problems.length === 0) return omitted.total > 0 ? <OmittedProblems omitted={omitted} /> : <p>{t("imports.noneRefused")}</p>;
  return (
    <>
      <table class="import-problems">
        <caption>{t("imports.refused")}</caption>
        <thead>
          <tr>
            <th class="num">{t("imports.line")}</th>
            <th>{t("imports.code")}</th>
            <th>{t("imports.reason")}</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((p) => (
            <tr key={p.line}>
              <td class="num">{p.line}</td>
              <td>
                <code>{p.code}</code>
              </td>
              <td>{p.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next !== null && (
        <button type="button" onClick={() => load(next)}>
          {t("common.more")}
        </button>
      )}
      <OmittedProblems omitted={omitted} />
    </>
  );
}

export function Imports({ live }: { live: LiveSocket }) {
  useT();
  const [imports, setImports] = useState<CatalogImportBody[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const reload = (): void => {
      api
        .get<{ imports: CatalogImportBody[] }>("/api/v1/admin/catalog-imports?limit=50")
        .then((body) => setImports(body.imports))
        .catch((caught) => setError(describeApiError(caught)));
    };
    const onProgress = (event: CatalogImportEvent): void => {
      setImports((list) => {
        if (!list?.some((item) => item.id === event.importId)) {
          reload();
          return list;
        }
        return list.map((item) =>
          item.id === event.importId
            ? {
                ...item,
                status: event.status,
                total: event.total,
                done: event.done,
                counts: event.counts,
                changed: event.counts.created + event.counts.updated + event.counts.deleted > 0,
              }
            : item,
        );
      });
      // The final state carries the finish time and any error: read the list again.
      if (event.status === "completed" || event.status === "failed") reload();
    };
    live.socket.on("catalog_import", onProgress);
    const stopCatchUp = live.onConnect(reload);
    return () => {
      live.socket.off("catalog_import", onProgress);
      stopCatchUp();
    };
  }, [live]);

  return (
    <ConsolePage label={t("nav.imports")} name="imports">
      <h1>{t("imports.title")}</h1>
      <p>
        <Msg id="imports.intro" values={{ doc: <code>docs/integrations.md</code> }} />
      </p>
      {error && <p class="alert">{error}</p>}
      {imports && imports.length === 0 && <p>{t("imports.empty")}</p>}
      {imports && imports.length > 0 && (
        <table class="imports">
          <thead>
            <tr>
              <th>{t("imports.received")}</th>
              <th>{t("common.key")}</th>
              <th>{t("common.status")}</th>
              <th>{t("imports.result")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {imports.map((item) => (
              <Fragment key={item.id}>
                <tr data-import={item.id}>
                  <td>{when(item.created_at)}</td>
                  <td>{item.key_name ?? t("imports.revokedKey")}</td>
                  <td>
                    <span class={`status-pill ${item.status}`}>{t(STATUS_LABEL[item.status])}</span>
                    {item.status === "applying" && item.total ? <progress max={item.total} value={item.done} aria-label={t("imports.applied")} /> : null}
                  </td>
                  <td>{outcome(item)}</td>
                  <td>
                    {(item.counts.failed > 0 || item.status === "failed") && (
                      <button type="button" aria-expanded={open === item.id} onClick={() => setOpen(open === item.id ? null : item.id)}>
                        {t(open === item.id ? "imports.hideRefused" : "imports.refused")}
                      </button>
                    )}
                  </td>
                </tr>
                {open === item.id && (
                  <tr>
                    <td colSpan={5}>
                      <ProblemList importId={item.id} omitted={item.problems_omitted} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </ConsolePage>
  );
}
