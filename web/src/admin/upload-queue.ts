/**
 * The console's upload queue: every dropped or chosen file is sent, one at a time, at the rate
 * the server allows. A refusal for pace (429 RATE_LIMITED) or a passing outage (503, network)
 * pauses the queue for the server's Retry-After and sends the same file again; only a refusal of
 * the file itself (type, size, content) ends it as failed.
 *
 * What survives a reload, honestly: a page cannot keep File objects across a reload, so the
 * queue keeps, in localStorage, what it knows about each file (name, size, lastModified, and
 * whether it was sent). After a reload the files already sent stay done; the ones not yet sent
 * are listed as needing to be chosen again, and choosing the same folder again sends only those.
 */
import { ApiError } from "../lib/api";
import { describeApiError } from "../lib/errors";

export type UploadState = "waiting" | "uploading" | "done" | "failed" | "reselect";

export interface UploadEntry {
  key: string;
  name: string;
  size: number;
  state: UploadState;
  /** Done: "duplicate" when the server already had the file; failed: the refusal in words. */
  note?: string;
  documentId?: string;
}

export interface QueueView {
  entries: UploadEntry[];
  /** While the server's limit (or an outage) holds the queue back: when it sends again (epoch ms). */
  pausedUntil: number | null;
}

export interface SentUpload {
  document_id: string;
  duplicate: boolean;
}

/** What identifies a file across a reload without reading it: the browser gives nothing steadier. */
export const fileKey = (file: Pick<File, "name" | "size" | "lastModified">): string => `${file.name}\u0000${file.size}\u0000${file.lastModified}`;

/** Refusals that are about pace or a passing outage: wait and send the same file again. */
const isWorthWaiting = (error: unknown): error is ApiError =>
  error instanceof ApiError && (error.status === 429 || error.status === 503 || error.code === "NETWORK_ERROR");

/** How long to wait when the server named no time (an unreachable server names none). */
const DEFAULT_PAUSE_SECONDS = 5;
/** Entries kept in storage; the oldest finished ones go first. */
const MAX_REMEMBERED = 5_000;

export class UploadQueue {
  private readonly entries = new Map<string, UploadEntry>();
  private readonly files = new Map<string, File>();
  private readonly listeners = new Set<() => void>();
  private pausedUntil: number | null = null;
  private running = false;

  constructor(
    private readonly storageKey: string,
    private readonly send: (file: File) => Promise<SentUpload>,
    /** Each file's end: done (sent) or failed (refused for itself). */
    private readonly onSettled: (entry: UploadEntry) => void = () => undefined,
    private readonly storage: Pick<Storage, "getItem" | "setItem"> = localStorage,
  ) {
    for (const entry of this.load()) {
      // Its File did not survive the reload: it must be chosen again (an upload cut off mid-way may
      // have arrived; sending it again is safe, the server recognises a duplicate).
      const unsent = entry.state === "waiting" || entry.state === "uploading";
      this.entries.set(entry.key, unsent ? { ...entry, state: "reselect" } : entry);
    }
  }

  view(): QueueView {
    return { entries: [...this.entries.values()], pausedUntil: this.pausedUntil };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Queues the files not already sent; returns the names skipped because they were. */
  add(files: File[]): { queued: number; alreadySent: string[] } {
    const alreadySent: string[] = [];
    let queued = 0;
    for (const file of files) {
      const key = fileKey(file);
      const known = this.entries.get(key);
      if (known?.state === "done") {
        alreadySent.push(file.name);
        continue;
      }
      if (known?.state === "waiting" || known?.state === "uploading") continue;
      // Re-adding re-queues at the end, so a file chosen again after a failure gets another go.
      this.entries.delete(key);
      this.entries.set(key, { key, name: file.name, size: file.size, state: "waiting" });
      this.files.set(key, file);
      queued++;
    }
    this.changed();
    void this.run();
    return { queued, alreadySent };
  }

  /** Forgets finished entries and the ones that would need choosing again. */
  clearFinished(): void {
    for (const [key, entry] of this.entries) if (entry.state === "done" || entry.state === "failed" || entry.state === "reselect") this.entries.delete(key);
    this.changed();
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.nextWaiting(); next; next = this.nextWaiting()) await this.sendOne(next);
    } finally {
      this.running = false;
    }
  }

  private nextWaiting(): UploadEntry | undefined {
    for (const entry of this.entries.values()) if (entry.state === "waiting" && this.files.has(entry.key)) return entry;
    return undefined;
  }

  private async sendOne(entry: UploadEntry): Promise<void> {
    this.update(entry.key, { state: "uploading" });
    try {
      const sent = await this.send(this.files.get(entry.key)!);
      this.files.delete(entry.key);
      this.settle(entry.key, { state: "done", documentId: sent.document_id, note: sent.duplicate ? "duplicate" : undefined });
    } catch (error) {
      if (isWorthWaiting(error)) {
        this.update(entry.key, { state: "waiting" });
        await this.pause(error.retryAfter ?? DEFAULT_PAUSE_SECONDS);
        return;
      }
      this.files.delete(entry.key);
      this.settle(entry.key, { state: "failed", note: describeApiError(error, "uploads") });
    }
  }

  private async pause(seconds: number): Promise<void> {
    this.pausedUntil = Date.now() + seconds * 1000;
    this.changed();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    this.pausedUntil = null;
    this.changed();
  }

  private settle(key: string, change: Partial<UploadEntry>): void {
    const settled = this.update(key, change);
    if (settled) this.onSettled(settled);
  }

  private update(key: string, change: Partial<UploadEntry>): UploadEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const updated = { ...entry, ...change };
    this.entries.set(key, updated);
    this.changed();
    return updated;
  }

  private changed(): void {
    this.save();
    for (const listener of this.listeners) listener();
  }

  private load(): UploadEntry[] {
    try {
      const stored = JSON.parse(this.storage.getItem(this.storageKey) ?? "[]") as unknown;
      return Array.isArray(stored) ? stored.filter((e): e is UploadEntry => typeof e?.key === "string" && typeof e?.state === "string") : [];
    } catch {
      return [];
    }
  }

  private save(): void {
    const entries = [...this.entries.values()].slice(-MAX_REMEMBERED);
    try {
      this.storage.setItem(this.storageKey, JSON.stringify(entries));
    } catch {
      // Storage full or disabled: the queue still works, it just will not survive a reload.
    }
  }
}
