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
  const share = storage.quota_bytes > 0 ? storage.used_bytes / storage.quota_bytes : 1;
  return (
    <p class={`storage-usage${share >= 0.9 ? " nearly-full" : ""}`} data-used-bytes={storage.used_bytes} data-quota-bytes={storage.quota_bytes}>
      <meter min={0} max={storage.quota_bytes} value={storage.used_bytes} high={storage.quota_bytes * 0.9} aria-label="Document storage used" /> Storage:{" "}
      {formatBytes(storage.used_bytes)} of {formatBytes(storage.quota_bytes)} used ({Math.round(share * 100)} %)
    </p>
  );
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot >= 0 ? name.slice(dot).toLowerCase() : "";
}

export function Documents({ me, live }: { me: Me; live: LiveSocket }) {
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
  const refreshOne = async (id: string): Promise<void> => {
    try {
      const fresh = await api.get<DocumentInfo>(`/api/v1/documents/${id}`);
      setDocuments((list) => (list.some((d) => d.id === id) ? list.map((d) => (d.id === id ? fresh : d)) : [fresh, ...list]));
    } catch {
      // Deleted meanwhile: the next full reload drops it.
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
      // Final states: read the row again for the chunk count and the stored reason.
      if (event.status === "COMPLETED" || event.status === "FAILED") void refreshOne(event.documentId);
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
        say(`${file.name} is ${formatBytes(file.size)}, over the ${formatBytes(limits.max_bytes)} limit: not uploaded.`);
        return false;
      }
      if (limits.accepted_extensions.length && !limits.accepted_extensions.includes(extensionOf(file.name))) {
        say(`${file.name}: this type is not accepted (allowed: ${limits.accepted_extensions.join(" ")}).`);
        return false;
      }
      return true;
    });
    const { alreadySent } = queue.add(acceptable);
    if (alreadySent.length) say(`${alreadySent.length} ${alreadySent.length === 1 ? "file was" : "files were"} already uploaded from this browser: skipped.`);
  };

  const reindex = async (doc: DocumentInfo): Promise<void> => {
    try {
      await api.post(`/api/v1/documents/${doc.id}/reindex`);
      await refreshOne(doc.id);
    } catch (error) {
      say(`${doc.title}: ${describeApiError(error, "re-index requests")}`);
    }
  };

  const remove = async (doc: DocumentInfo): Promise<void> => {
    if (!confirm(`Delete "${doc.title}" and its chunks? The tutor stops using it at once.`)) return;
    try {
      await api.del(`/api/v1/documents/${doc.id}`);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "DOCUMENT_IN_USE")) return say(`${doc.title}: ${describeApiError(error)}`);
      if (!confirm(`${error.message}. Delete it anyway and detach it from those courses?`)) return;
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
    <ConsolePage label="Documents" name="documents">
      <UploadZone limits={limits} onFiles={upload} />
      <UploadQueuePanel view={queueView} onClear={() => queue.clearFinished()} />
      <div class="messages-box" role="status" aria-live="polite">
        {messages.map((m, i) => (
          <p key={i}>{m}</p>
        ))}
      </div>
      <h2 id="documents-title">Documents</h2>
      {storage && <StorageUsage storage={storage} />}
      {documents.length === 0 ? (
        <p class="hint">No documents yet.</p>
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
                    {doc.filename ?? "seeded text"}
                    {doc.size_bytes ? ` · ${formatBytes(doc.size_bytes)}` : ""} · {doc.counts.chunks} chunks
                    {/* A finished document without chunks is not broken: the tutor reads its whole text (the document rung). */}
                    {doc.status === "COMPLETED" && doc.counts.chunks === 0 && (
                      <span class="read-whole" title="Not split into passages: when a question needs it, the tutor reads the whole text">
                        {" "}
                        · read whole by the tutor
                      </span>
                    )}
                  </span>
                </div>
                <div class="doc-status">
                  <span class={`status-pill ${doc.status.toLowerCase()}`} data-status={doc.status}>
                    {doc.status}
                    {doc.status === "EMBEDDING" && embedding ? ` ${embedding.done}/${embedding.total}` : ""}
                  </span>
                  {doc.status !== "FAILED" && doc.status !== "COMPLETED" && (
                    <progress max={STEPS.length - 1} value={Math.max(step, 0)} aria-label={`${doc.title}: ${doc.status}`} />
                  )}
                  {doc.status === "FAILED" && (
                    <p class="doc-error" role="alert">
                      {doc.error ?? "Indexing failed."} {doc.error_code && <code>{doc.error_code}</code>}
                    </p>
                  )}
                </div>
                <div class="doc-actions">
                  <button type="button" onClick={() => void reindex(doc)} aria-label={`Re-index ${doc.title}`}>
                    Re-index
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(doc)} aria-label={`Delete ${doc.title}`}>
                    Delete
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
