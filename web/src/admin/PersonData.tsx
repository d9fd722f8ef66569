/**
 * A person's data from the people page (docs/personal-data.md): export it — the admin's own copy,
 * built by a queued job, then downloaded — or erase it, confirmed by typing their email, which
 * cannot be undone. Both are jobs; this follows each until it ends by asking for its status.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api";
import { type ExportStatus, followJob, saveArchive } from "../lib/data-export";
import { describeApiError } from "../lib/errors";
import { t, useT } from "../lib/i18n";
import type { Person } from "./people-labels";

interface ErasureStatus {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  step: string | null;
  error: string | null;
}

const archiveName = (person: Person) => `${t("personData.fileName")}-${person.name.replace(/[^\p{L}\p{N}]+/gu, "-").toLowerCase()}.zip`;

export function PersonData({ person, onErased, onError }: { person: Person; onErased: () => void; onError: (message: string | null) => void }) {
  useT();
  const [exported, setExported] = useState<ExportStatus | null>(null);
  const [erasure, setErasure] = useState<ErasureStatus | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState("");
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const base = `/api/v1/admin/people/${person.id}`;

  const follow = <T extends { status: string }>(read: () => Promise<T>, show: (value: T) => void) => followJob(read, show, () => alive.current);

  const startExport = async (): Promise<void> => {
    onError(null);
    try {
      const { export: started } = await api.post<{ export: ExportStatus }>(`${base}/export`);
      setExported(started);
      await follow(async () => (await api.get<{ export: ExportStatus }>(`${base}/exports/${started.id}`)).export, setExported);
    } catch (caught) {
      onError(describeApiError(caught));
      setExported(null);
    }
  };

  const erase = async (): Promise<void> => {
    onError(null);
    try {
      const { erasure: started } = await api.post<{ erasure: ErasureStatus }>(`${base}/erasure`, { confirm: typed });
      setConfirming(false);
      setErasure(started);
      const ended = await follow(async () => (await api.get<{ erasure: ErasureStatus }>(`${base}/erasure`)).erasure, setErasure);
      if (ended?.status === "completed") onErased();
      else if (ended) onError(t("personData.erasureFailed", { reason: ended.error ?? t("common.unknownReason") }));
    } catch (caught) {
      onError(describeApiError(caught));
    }
  };

  if (erasure)
    return (
      <span class="person-data-progress" role="status">
        {erasure.status === "failed"
          ? t("personData.erasureFailedShort")
          : t("personData.erasing", { step: erasure.step ?? t("action.status", { status: "queued" }) })}
      </span>
    );
  if (confirming)
    return (
      <div class="confirm-step" role="group" aria-label={t("personData.confirmErase", { name: person.name })}>
        <span>{t("personData.eraseQuestion", { name: person.name })}</span>
        <input
          type="text"
          aria-label={t("personData.emailOf", { name: person.name })}
          value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="danger" disabled={typed.trim().toLowerCase() !== person.email} onClick={() => void erase()}>
          {t("personData.erase")}
        </button>{" "}
        <button type="button" onClick={() => setConfirming(false)}>
          {t("common.cancel")}
        </button>
      </div>
    );
  return (
    <span class="person-data">
      {exported?.status === "completed" && exported.download_url ? (
        <button
          type="button"
          aria-label={t("personData.downloadName", { name: person.name })}
          onClick={() => void saveArchive(exported.download_url!, archiveName(person)).catch((caught: Error) => onError(caught.message))}
        >
          {t("personData.download")}
        </button>
      ) : (
        <button
          type="button"
          aria-label={t("personData.exportName", { name: person.name })}
          disabled={exported?.status === "queued" || exported?.status === "running"}
          onClick={() => void startExport()}
        >
          {t(exported?.status === "queued" || exported?.status === "running" ? "personData.exporting" : "personData.export")}
        </button>
      )}{" "}
      <button
        type="button"
        class="danger"
        aria-label={t("personData.eraseName", { name: person.name })}
        onClick={() => {
          setTyped("");
          setConfirming(true);
        }}
      >
        {t("personData.eraseOpen")}
      </button>
    </span>
  );
}
