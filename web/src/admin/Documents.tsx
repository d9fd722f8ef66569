/**
 * Company documents: upload (through the queue, upload-queue.ts), live status (socket
 * `document_status`), chunk counts, failure reasons, re-index and delete, and the organisation's
 * stored files against its storage quota. The list is read once and then kept current by the
 * socket; the list (with the storage figure) is read again after each upload and delete.
 */
import { ConsolePage } from "../components/ConsolePage";
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, api } from "../lib/api";
import { describeApiError, formatBytes } from "../lib/errors";
import { formatNumber, t, useT } from "../lib/i18n";
import type { LiveSocket } from "../lib/socket";
import type { DocumentInfo, Me } from "../lib/types";
import { UploadQueue, type QueueView, type SentUpload } from "./upload-queue";
import { UploadQueuePanel } from "./UploadQueuePanel";
import { UploadZone } from "./UploadZone";

interface StatusEvent {
  documentId: string;
  status: string;
  progress?: { done: number; total: number };
  error?: string;
  error_code?: string;
}

const STEPS = ["PENDING", "PROCESSING", "CHUNKING", "EMBEDDING", "COMPLETED"];

/** The organisation's uploaded files against its quota (`storage` of GET /api/v1/documents). */
interface Storage {
  used_bytes: number;
  quota_bytes: number;
}

function StorageUsage({ storage }: { storage: Storage }) {
  useT();
  const share = storage.quota_bytes > 0 ? storage.used_bytes / storage.quota_bytes : 1;
  return (
    <p class={`storage-usage${share >= 0.9 ? " nearly-full" : ""}`} data-used-bytes={storage.used_bytes} data-quota-bytes={storage.quota_bytes}>
      <meter min={0} max={storage.quota_bytes} value={storage.used_bytes} high={storage.quota_bytes * 0.9} aria-label={t("documents.storage.label")} />{" "}
      {t("documents.storage", {
        used: formatBytes(storage.used_bytes),
        quota: formatBytes(storage.quota_bytes),
        share: formatNumber(share, { style: "percent" }),
      })}
    </p>
  );
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot).toLowerCase() : "";
}

export function Documents({ me, live }: { me: Me; live: LiveSocket }) {
  useT();
  const limits = me.uploads ?? { max_bytes: 5 * 1024 * 1024, accepted_extensions: [] };
  const [documents, setDocuments] = useState<DocumentInfo[]>([]);
  const [progress, setProgress] = useState<Record<string, { done: number; total: number }>>({});
  const [messages, setMessages] = useState<string[]>([]);
  const [storage, setStorage] = useState<Storage | null>(null);

  const say = (text: string): void => setMessages((list) => [...list.slice(-4), text]);
  const reload = async (): Promise<void> => {
    try {
      const listing = await api.get<{ documents: DocumentInfo[]; storage: Storage }>("/api/v1/documents");
      setDocuments(listing.documents);
      setStorage(listing.storage);
    } catch (error) {
      say(describeApiError(error));
    }
  };
  /** Shows the document's row as stored; false when it could not be read (deleted meanwhile: the next reload drops it). */
  const refreshOne = async (id: string): Promise<boolean> => {
    try {
      const fresh = await api.get<DocumentInfo>(`/api/v1/documents/${id}`);
      setDocuments((list) => (list.some((d) => d.id === id) ? list.map((d) => (d.id === id ? fresh : d)) : [fresh, ...list]));
      return true;
    } catch {
      return false;
    }
  };

  const queue = useMemo(
    () =>
      new UploadQueue(
        `skillnet.uploads.${me.user.id}`,
        (file) => {
          const form = new FormData();
          form.append("file", file, file.name);
          return api.upload<SentUpload>("/api/v1/documents", form);
        },
        (entry) => {
          if (entry.state === "failed") say(`${entry.name}: ${entry.note}`);
          // The list again: the new row and the storage it took (or the quota that refused it).
          void reload();
        },
      ),
    [me.user.id],
  );
  const [queueView, setQueueView] = useState<QueueView>(() => queue.view());
  useEffect(() => {
    setQueueView(queue.view());
    return queue.subscribe(() => setQueueView(queue.view()));
  }, [queue]);

  useEffect(() => {
    void reload();
    const onStatus = (event: StatusEvent): void => {
      // Final states: the row is read again and shown whole (status, chunk count, stored reason) in one change, so a
      // finished document never shows "0 chunks · read whole" for a moment; the event's status is the fallback.
      if (event.status === "COMPLETED" || event.status === "FAILED") {
        void refreshOne(event.documentId).then((found) => found || applyEvent(event));
        return;
      }
      applyEvent(event);
    };
    const applyEvent = (event: StatusEvent): void => {
      setDocuments((list) =>
        list.map((d) =>
          d.id === event.documentId
            ? {
                ...d,
                status: event.status,
                error: event.error ?? (event.status === "FAILED" ? d.error : null),
                error_code: event.error_code ?? (event.status === "FAILED" ? d.error_code : null),
              }
            : d,
        ),
      );
      if (event.progress) setProgress((all) => ({ ...all, [event.documentId]: event.progress! }));
    };
    live.socket.on("document_status", onStatus);
    // Statuses sent while disconnected are not replayed: catch up from the API.
    const stopCatchUp = live.onConnect(() => void reload());
    return () => {
      live.socket.off("document_status", onStatus);
      stopCatchUp();
    };
  }, [live]);

  /** Refuses here what the server would refuse anyway (size, type), and queues the rest. */
  const upload = (files: File[]): void => {
    const acceptable = files.filter((file) => {
      if (file.size > limits.max_bytes) {
        say(t("documents.tooLarge", { file: file.name, size: formatBytes(file.size), limit: formatBytes(limits.max_bytes) }));
        return false;
      }
      if (limits.accepted_extensions.length && !limits.accepted_extensions.includes(extensionOf(file.name))) {
        say(t("documents.wrongType", { file: file.name, allowed: limits.accepted_extensions.join(" ") }));
        return false;
      }
      return true;
    });
    const { alreadySent } = queue.add(acceptable);
    if (alreadySent.length) say(t("documents.alreadySent", { count: alreadySent.length }));
  };

  const reindex = async (doc: DocumentInfo): Promise<void> => {
    try {
      await api.post(`/api/v1/documents/${doc.id}/reindex`);
      await refreshOne(doc.id);
    } catch (error) {
      say(`${doc.title}: ${describeApiError(error, "reindex")}`);
    }
  };

  const remove = async (doc: DocumentInfo): Promise<void> => {
    if (!confirm(t("documents.confirmDelete", { title: doc.title }))) return;
    try {
      await api.del(`/api/v1/documents/${doc.id}`);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "DOCUMENT_IN_USE")) return say(`${doc.title}: ${describeApiError(error)}`);
      if (!confirm(t("documents.confirmForce", { reason: error.message }))) return;
      try {
        await api.del(`/api/v1/documents/${doc.id}?force=true`);
      } catch (forced) {
        return say(`${doc.title}: ${describeApiError(forced)}`);
      }
    }
    setDocuments((list) => list.filter((d) => d.id !== doc.id));
    void reload();
  };

  return (
    <ConsolePage label={t("nav.documents")} name="documents">
      <UploadZone limits={limits} onFiles={upload} />
      <UploadQueuePanel view={queueView} onClear={() => queue.clearFinished()} />
      <div class="messages-box" role="status" aria-live="polite">
        {messages.map((m, i) => (
          <p key={i}>{m}</p>
        ))}
      </div>
      <h2 id="documents-title">{t("nav.documents")}</h2>
      {storage && <StorageUsage storage={storage} />}
      {documents.length === 0 ? (
        <p class="hint">{t("documents.empty")}</p>
      ) : (
        <ul class="document-list">
          {documents.map((doc) => {
            const step = STEPS.indexOf(doc.status);
            const embedding = progress[doc.id];
            return (
              <li key={doc.id} class={`document status-${doc.status.toLowerCase()}`} data-document-id={doc.id}>
                <div class="doc-main">
                  <span class="doc-title">{doc.title}</span>
                  <span class="doc-meta">
                    {doc.filename ?? t("documents.seeded")}
                    {doc.size_bytes ? ` · ${formatBytes(doc.size_bytes)}` : ""} · {t("documents.chunks", { count: doc.counts.chunks })}
                    {/* A finished document without chunks is not broken: the tutor reads its whole text (the document rung). */}
                    {doc.status === "COMPLETED" && doc.counts.chunks === 0 && (
                      <span class="read-whole" title={t("documents.readWhole.title")}>
                        {" "}
                        · {t("documents.readWhole")}
                      </span>
                    )}
                  </span>
                </div>
                <div class="doc-status">
                  <span class={`status-pill ${doc.status.toLowerCase()}`} data-status={doc.status}>
                    {t("documents.status", { status: doc.status })}
                    {doc.status === "EMBEDDING" && embedding ? ` ${embedding.done}/${embedding.total}` : ""}
                  </span>
                  {doc.status !== "FAILED" && doc.status !== "COMPLETED" && (
                    <progress max={STEPS.length - 1} value={Math.max(step, 0)} aria-label={`${doc.title}: ${t("documents.status", { status: doc.status })}`} />
                  )}
                  {doc.status === "FAILED" && (
                    <p class="doc-error" role="alert">
                      {doc.error ?? t("documents.failed")} {doc.error_code && <code>{doc.error_code}</code>}
                    </p>
                  )}
                </div>
                <div class="doc-actions">
                  <button type="button" onClick={() => void reindex(doc)} aria-label={t("documents.reindexName", { title: doc.title })}>
                    {t("documents.reindex")}
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(doc)} aria-label={t("documents.deleteName", { title: doc.title })}>
                    {t("common.delete")}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </ConsolePage>
  );
}
