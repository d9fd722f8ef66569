/**
 * The files waiting in the tutor's message box: each is uploaded at once to the conversation
 * (which the first one starts when there is none yet), read by a worker, and shown as a chip
 * whose state follows `attachment_status` on the socket: processing, ready, or failed with the
 * reason. A message is sent with the ready ones; the limits are checked here first, with the
 * server's own numbers (lib/chat-attachment-limits.ts). Removing a chip deletes its file on the
 * server (once uploaded), so the tutor never reads it and it stops counting toward the limits.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from "../../../lib/chat-attachment-limits";
import { ApiError, api } from "./api";
import { describeApiError } from "./errors";
import { formatBytes, t } from "./i18n";
import type { LiveSocket } from "./socket";
import type { SentFile } from "./types";

export interface AttachmentChip {
  key: string;
  id?: string;
  filename: string;
  size: number;
  status: "uploading" | "processing" | "ready" | "failed";
  reason?: string;
}

interface Uploaded {
  id: string;
  session_id: string;
  status: "processing" | "ready" | "failed";
  error: string | null;
}

interface StatusEvent {
  attachmentId: string;
  status: "ready" | "failed";
  reason?: string;
}

export interface Attachments {
  chips: AttachmentChip[];
  add(files: File[]): Promise<void>;
  remove(key: string): void;
  /** The files to send with the message; the chips are cleared once it is sent. */
  ready(): SentFile[];
  clear(): void;
  /** A file is still uploading or being read. */
  pending: boolean;
}

let keys = 0;

/** `sessionId` is the open conversation; `adopt` opens the one the first upload started. */
export function useAttachments(live: LiveSocket, sessionId: string | null, adopt: (id: string) => Promise<void>): Attachments {
  const [chips, setChips] = useState<AttachmentChip[]>([]);
  const session = useRef(sessionId);
  session.current = sessionId;
  /** Chips removed while still uploading: their file is deleted as soon as the upload answers. */
  const removedWhileUploading = useRef(new Set<string>());
  const update = (key: string, change: Partial<AttachmentChip>) => setChips((list) => list.map((chip) => (chip.key === key ? { ...chip, ...change } : chip)));

  useEffect(() => {
    const handler = (event: StatusEvent): void =>
      setChips((list) => list.map((chip) => (chip.id === event.attachmentId ? { ...chip, status: event.status, reason: event.reason } : chip)));
    live.socket.on("attachment_status", handler);
    return () => void live.socket.off("attachment_status", handler);
  }, [live]);

  // Another conversation opened: its message box starts empty (not the one an upload of this box just started).
  const shown = useRef(sessionId);
  useEffect(() => {
    if (sessionId !== shown.current) setChips([]);
    shown.current = sessionId;
  }, [sessionId]);

  const add = async (files: File[]): Promise<void> => {
    for (const file of files) {
      const key = `attachment-${++keys}`;
      const tooMany = chips.length + files.indexOf(file) >= ATTACHMENTS_PER_MESSAGE;
      const tooLarge = file.size > ATTACHMENT_MAX_BYTES;
      if (tooMany || tooLarge) {
        const reason = tooMany
          ? t("attachments.tooMany", { count: ATTACHMENTS_PER_MESSAGE })
          : t("attachments.tooLarge", { limit: formatBytes(ATTACHMENT_MAX_BYTES) });
        setChips((list) => [...list, { key, filename: file.name, size: file.size, status: "failed", reason }]);
        continue;
      }
      setChips((list) => [...list, { key, filename: file.name, size: file.size, status: "uploading" }]);
      const form = new FormData();
      form.append("file", file, file.name);
      if (session.current) form.append("session_id", session.current);
      try {
        const uploaded = await api.upload<Uploaded>("/api/v1/chat/attachments", form);
        if (removedWhileUploading.current.delete(key)) void discard({ key, filename: file.name, size: file.size, id: uploaded.id, status: uploaded.status });
        // Ready before this answer arrived is told by the event, which may come first: keep whichever is further on.
        setChips((list) =>
          list.map((chip) => (chip.key === key ? { ...chip, id: uploaded.id, status: chip.status === "uploading" ? uploaded.status : chip.status } : chip)),
        );
        if (session.current !== uploaded.session_id) {
          session.current = uploaded.session_id;
          shown.current = uploaded.session_id;
          await adopt(uploaded.session_id);
        }
      } catch (caught) {
        update(key, { status: "failed", reason: describeApiError(caught) });
      }
    }
  };

  /** Deletes the chip's file; if that fails (other than already gone), the chip comes back, failed with the reason, to be removed again. */
  const discard = async (chip: AttachmentChip): Promise<void> => {
    try {
      await api.del(`/api/v1/chat/attachments/${encodeURIComponent(chip.id!)}`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 404) return;
      setChips((list) => [...list, { ...chip, status: "failed", reason: describeApiError(caught) }]);
    }
  };

  const remove = (key: string): void => {
    const chip = chips.find((candidate) => candidate.key === key);
    setChips((list) => list.filter((candidate) => candidate.key !== key));
    if (chip?.id) void discard(chip);
    else if (chip?.status === "uploading") removedWhileUploading.current.add(key);
  };

  return {
    chips,
    add,
    remove,
    ready: () =>
      chips
        .filter((chip) => chip.status === "ready" && chip.id)
        .map((chip) => ({ id: chip.id!, filename: chip.filename, size_bytes: chip.size, status: "ready" as const })),
    clear: () => setChips([]),
    pending: chips.some((chip) => chip.status === "uploading" || chip.status === "processing"),
  };
}
