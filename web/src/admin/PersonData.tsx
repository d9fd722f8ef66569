/**
 * A person's data from the people page (docs/personal-data.md): export it — the admin's own copy,
 * built by a queued job, then downloaded — or erase it, confirmed by typing their email, which
 * cannot be undone. Both are jobs; this follows each until it ends by asking for its status.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../lib/api";
import { type ExportStatus, followJob, saveArchive } from "../lib/data-export";
import { describeApiError } from "../lib/errors";
import type { Person } from "./people-labels";

interface ErasureStatus {
  id: string;
  status: "queued" | "running" | "completed" | "failed";
  step: string | null;
  error: string | null;
}

const archiveName = (person: Person) => `data-${person.name.replace(/[^\p{L}\p{N}]+/gu, "-").toLowerCase()}.zip`;

export function PersonData({ person, onErased, onError }: { person: Person; onErased: () => void; onError: (message: string | null) => void }) {
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
      else if (ended) onError(`The erasure failed: ${ended.error ?? "unknown reason"}. Erase again to resume it.`);
    } catch (caught) {
      onError(describeApiError(caught));
    }
  };

  if (erasure)
    return (
      <span class="person-data-progress" role="status">
        {erasure.status === "failed" ? "Erasure failed" : `Erasing… ${erasure.step ?? "queued"}`}
      </span>
    );
  if (confirming)
    return (
      <div class="confirm-step" role="group" aria-label={`Confirm erasing ${person.name}`}>
        <span>Erase {person.name}'s chats, ratings, sign-in links and exports? This cannot be undone. Type their email to confirm:</span>
        <input type="text" aria-label={`Email of ${person.name}`} value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
        <button type="button" class="danger" disabled={typed.trim().toLowerCase() !== person.email} onClick={() => void erase()}>
          Erase
        </button>{" "}
        <button type="button" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    );
  return (
    <span class="person-data">
      {exported?.status === "completed" && exported.download_url ? (
        <button
          type="button"
          aria-label={`Download ${person.name}'s data`}
          onClick={() => void saveArchive(exported.download_url!, archiveName(person)).catch((caught: Error) => onError(caught.message))}
        >
          Download data
        </button>
      ) : (
        <button
          type="button"
          aria-label={`Export ${person.name}'s data`}
          disabled={exported?.status === "queued" || exported?.status === "running"}
          onClick={() => void startExport()}
        >
          {exported?.status === "queued" || exported?.status === "running" ? "Exporting…" : "Export data"}
        </button>
      )}{" "}
      <button
        type="button"
        class="danger"
        aria-label={`Erase ${person.name}'s data`}
        onClick={() => {
          setTyped("");
          setConfirming(true);
        }}
      >
        Erase…
      </button>
    </span>
  );
}
