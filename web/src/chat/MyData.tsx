/**
 * "Download my data" in the tutor's header: asks for the employee's own export
 * (`POST /api/v1/me/export`), follows the queued job and saves the zip once it is built
 * (their chats with citations, ratings, enrolments and skills; docs/personal-data.md).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../lib/api";
import { type ExportStatus, followJob, saveArchive } from "../lib/data-export";
import { describeApiError } from "../lib/errors";
import { useT } from "../lib/i18n";

export function MyData() {
  const { t } = useT();
  const [state, setState] = useState<"idle" | "building" | "failed">("idle");
  const [message, setMessage] = useState<string | null>(null);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const download = async (): Promise<void> => {
    setState("building");
    setMessage(null);
    try {
      const { export: started } = await api.post<{ export: ExportStatus }>("/api/v1/me/export");
      const ended = await followJob(
        async () => (await api.get<{ export: ExportStatus }>(`/api/v1/me/exports/${started.id}`)).export,
        () => undefined,
        () => alive.current,
      );
      if (!ended) return;
      if (ended.status !== "completed" || !ended.download_url) throw new Error(t("myData.failed", { reason: ended.error ?? t("common.unknownReason") }));
      await saveArchive(ended.download_url, `${t("myData.fileName")}.zip`);
      setState("idle");
    } catch (caught) {
      setState("failed");
      setMessage(caught instanceof ApiError || !(caught instanceof Error) ? describeApiError(caught) : caught.message);
    }
  };

  return (
    <span class="my-data">
      <button type="button" class="link-button" disabled={state === "building"} onClick={() => void download()}>
        {t(state === "building" ? "myData.preparing" : "myData.download")}
      </button>
      {message && (
        <span class="alert" role="alert">
          {message}
        </span>
      )}
    </span>
  );
}
