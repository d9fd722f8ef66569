/**
 * The content-gap report: what employees ask that the company material does not answer, grouped
 * by meaning and ranked by how many people asked, each with an upload button for the document
 * that would answer it. A group leaves the list once the tutor answers it from company material.
 */
import { ConsolePage } from "../components/ConsolePage";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import { formatDay, t, useT } from "../lib/i18n";
import type { ContentGapsBody } from "../../../server/routes/insights/schema";
import "../insights.css";

type GapGroup = ContentGapsBody["groups"][number];

const when = (iso: string): string => formatDay(iso, { day: "numeric", month: "short", year: "numeric" });

function UploadFor({ group, accept }: { group: GapGroup; accept: string }) {
  useT();
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<{ busy: boolean; message: string | null; failed: boolean }>({ busy: false, message: null, failed: false });
  const send = async (file: File): Promise<void> => {
    setState({ busy: true, message: null, failed: false });
    const form = new FormData();
    form.append("file", file);
    try {
      await api.upload("/api/v1/documents", form);
      setState({
        busy: false,
        message: t("gaps.uploaded", { file: file.name }),
        failed: false,
      });
    } catch (error) {
      setState({ busy: false, message: describeApiError(error), failed: true });
    }
  };
  return (
    <div class="gap-upload">
      <button type="button" disabled={state.busy} onClick={() => input.current?.click()}>
        {t(state.busy ? "gaps.uploading" : "gaps.upload")}
      </button>
      <input
        ref={input}
        class="sr-only"
        type="file"
        accept={accept}
        aria-label={t("gaps.uploadFor", { question: group.examples[0] ?? "" })}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = "";
          if (file) void send(file);
        }}
      />
      {state.message && (
        <p class={state.failed ? "alert" : "notice"} role="status">
          {state.message}
        </p>
      )}
    </div>
  );
}

/** Polls no longer than this for one report; past it the page says so and offers Refresh. */
const MAX_POLLS = 30;

export function ContentGaps({ accept }: { accept: string }) {
  useT();
  const [groups, setGroups] = useState<GapGroup[] | null>(null);
  const [status, setStatus] = useState<ContentGapsBody["status"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const poll = useRef<{ timer?: ReturnType<typeof setTimeout>; count: number }>({ count: 0 });
  // The report is worked out by a worker: while it is `computing` (202) or `refreshing`, ask again when the server says.
  const fetchReport = (): void => {
    api
      .get<ContentGapsBody>("/api/v1/admin/insights/content-gaps")
      .then((body) => {
        setStatus(body.status);
        if (body.status !== "computing") setGroups(body.groups);
        if (body.status === "ready") return;
        if (poll.current.count >= MAX_POLLS) return setError(t("gaps.slow"));
        poll.current.count += 1;
        poll.current.timer = setTimeout(fetchReport, (body.retry_after ?? 2) * 1000);
      })
      .catch((caught) => setError(describeApiError(caught)));
  };
  const load = (): void => {
    clearTimeout(poll.current.timer);
    poll.current.count = 0;
    setError(null);
    fetchReport();
  };
  useEffect(() => {
    load();
    return () => clearTimeout(poll.current.timer);
  }, []);

  return (
    <ConsolePage label={t("nav.gaps")} name="insights content-gaps">
      <h1>{t("nav.gaps")}</h1>
      <p class="hint">
        {t("gaps.intro")}{" "}
        <button type="button" class="link-button" onClick={load}>
          {t("common.refresh")}
        </button>
      </p>
      {error && <p class="alert">{error}</p>}
      {status === "computing" && (
        <p class="notice" role="status" data-report-status="computing">
          {t("gaps.computing")}
        </p>
      )}
      {status === "refreshing" && (
        <p class="notice" role="status" data-report-status="refreshing">
          {t("gaps.refreshing")}
        </p>
      )}
      {status !== "computing" && groups?.length === 0 && <p class="empty">{t("gaps.empty")}</p>}
      {groups?.map((group) => (
        <section class="gap-group" key={group.id} data-group-id={group.id} aria-label={group.examples[0]}>
          <h2>“{group.examples[0]}”</h2>
          {group.examples.length > 1 && (
            <ul class="gap-examples">
              {group.examples.slice(1).map((example) => (
                <li key={example}>{example}</li>
              ))}
            </ul>
          )}
          <p class="gap-meta">
            <span class="gap-count">{t("gaps.count", { questions: group.count, people: group.employees })}</span>
            {group.departments.length > 0 && ` · ${group.departments.join(", ")}`}
            {group.languages.length > 0 && ` · ${group.languages.join(", ")}`} ·{" "}
            {t("gaps.when", { first: when(group.first_asked), last: when(group.last_asked) })}
          </p>
          <UploadFor group={group} accept={accept} />
        </section>
      ))}
    </ConsolePage>
  );
}
