/**
 * The content-gap report: what employees ask that the company material does not answer, grouped
 * by meaning and ranked by how many people asked, each with an upload button for the document
 * that would answer it. A group leaves the list once the tutor answers it from company material.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api";
import { describeApiError } from "../lib/errors";
import type { ContentGapsBody } from "../../../server/openapi/routes/insights";
import "../insights.css";

type GapGroup = ContentGapsBody["groups"][number];

const when = (iso: string): string => new Date(iso).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });

function UploadFor({ group, accept }: { group: GapGroup; accept: string }) {
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
        message: `Uploaded ${file.name}; it is being indexed. This group leaves the list once the tutor answers it from company material.`,
        failed: false,
      });
    } catch (error) {
      setState({ busy: false, message: describeApiError(error), failed: true });
    }
  };
  return (
    <div class="gap-upload">
      <button type="button" disabled={state.busy} onClick={() => input.current?.click()}>
        {state.busy ? "Uploading…" : "Upload a document that answers this"}
      </button>
      <input
        ref={input}
        class="sr-only"
        type="file"
        accept={accept}
        aria-label={`Upload a document that answers: ${group.examples[0] ?? ""}`}
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

export function ContentGaps({ accept }: { accept: string }) {
  const [groups, setGroups] = useState<GapGroup[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = (): void => {
    setError(null);
    api
      .get<{ groups: GapGroup[] }>("/api/v1/admin/insights/content-gaps")
      .then((body) => setGroups(body.groups))
      .catch((caught) => setError(describeApiError(caught)));
  };
  useEffect(load, []);

  return (
    <main class="insights content-gaps" aria-label="Content gaps">
      <h1>Content gaps</h1>
      <p class="hint">
        Questions of the last 30 days that the tutor answered from general knowledge, or that were rated down, grouped by meaning. The groups asked by the most
        people come first. New questions appear within about half a minute.{" "}
        <button type="button" class="link-button" onClick={load}>
          Refresh
        </button>
      </p>
      {error && <p class="alert">{error}</p>}
      {groups?.length === 0 && <p class="empty">No gaps: every recent question was answered from your company's material.</p>}
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
            <span class="gap-count">
              {group.count} {group.count === 1 ? "question" : "questions"} from {group.employees} {group.employees === 1 ? "person" : "people"}
            </span>
            {group.departments.length > 0 && ` · ${group.departments.join(", ")}`}
            {group.languages.length > 0 && ` · ${group.languages.join(", ")}`} · first {when(group.first_asked)}, last {when(group.last_asked)}
          </p>
          <UploadFor group={group} accept={accept} />
        </section>
      ))}
    </main>
  );
}
