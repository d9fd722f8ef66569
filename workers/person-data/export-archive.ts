/**
 * A person's export as one zip: `data.json` (everything, machine-readable: GDPR article 20),
 * `sessions/NNN-title.md` (each conversation as a readable transcript, answers with their
 * sources) and a `README.md` saying what is where. Written by yazl, which deflates each file with
 * node:zlib and puts its sizes in the local header; an attached file, written from a stream, has
 * them in a data descriptor after its data (and the central directory); any unzip tool opens it.
 *
 * It is built on the worker that streams answers, so it never holds that event loop for long
 * (a long history is tens of MB of text): files are deflated on libuv's thread pool (yazl's
 * async zlib), and `data.json` and the transcripts are written a session at a time, handing the
 * loop back every YIELD_EVERY_MS. Attached files are read one at a time, only when the zip
 * reaches their entry (yazl's lazy read streams), so besides the zip (the archive is kept as one
 * buffer: it is stored in the database) at most one attachment's bytes are in memory.
 */
import { Readable } from "node:stream";
import { ZipFile } from "yazl";
import type { ExportedSession, PersonData } from "../../db/queries/person-data";
import type { StoredSource } from "../../db/queries/message-metadata";

const YIELD_EVERY_MS = 10;

/** Hands the event loop back once YIELD_EVERY_MS of work has passed since the last time; a no-op otherwise. */
function yielder(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < YIELD_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/**
 * `JSON.stringify(value, null, 2)` of the export, written one element of each top-level list at a
 * time (the sessions are most of it), so no single step serialises the whole history.
 */
async function exportJson(value: Record<string, unknown>, pause: () => Promise<void>): Promise<string> {
  const fields: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    const name = `  ${JSON.stringify(key)}: `;
    if (!Array.isArray(field) || field.length === 0) {
      fields.push(`${name}${JSON.stringify(field, null, 2).replaceAll("\n", "\n  ")}`);
      continue;
    }
    const items: string[] = [];
    for (const item of field) {
      items.push(`    ${JSON.stringify(item, null, 2).replaceAll("\n", "\n    ")}`);
      await pause();
    }
    fields.push(`${name}[\n${items.join(",\n")}\n  ]`);
  }
  return `{\n${fields.join(",\n")}\n}`;
}

const iso = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value ?? ""));

/** A file name from a session title: ASCII letters, digits and hyphens, at most 40 characters. */
function slug(title: string | null): string {
  const folded = (title ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return folded || "session";
}

function citationLine(citation: StoredSource): string {
  const where = [citation.section, citation.page === null ? null : `p. ${citation.page}`].filter(Boolean).join(", ");
  return `  [${citation.index}] ${citation.document || citation.sourceType}${where ? ` (${where})` : ""}`;
}

/** One session as Markdown: its title and dates, then each message under who wrote it. */
export function sessionTranscript(session: ExportedSession, personName: string): string {
  const agent = session.agent_type === "admin" ? "Assistant" : "Tutor";
  const lines = [
    `# ${session.title || "Untitled conversation"}`,
    "",
    `${agent} conversation, started ${iso(session.created_at)}, last updated ${iso(session.updated_at)}.`,
    "",
  ];
  if (session.summary) lines.push(`> Summary kept by the tutor: ${session.summary.replace(/\n+/g, " ")}`, "");
  if (session.attachments?.length)
    lines.push(`Files attached: ${session.attachments.map((attachment) => attachment.filename).join(", ")} (in \`attachments/\`).`, "");
  for (const message of session.messages) {
    const who = message.role === "user" ? personName : agent;
    lines.push(`## ${who} — ${iso(message.created_at)}${message.status === "failed" ? " (failed)" : ""}`, "", message.content || "_(no text)_", "");
    if (message.citations.length > 0) lines.push("Sources:", ...message.citations.map(citationLine), "");
  }
  return lines.join("\n");
}

/** Where a conversation's attached file goes: `attachments/<its transcript's name>/<n>-<file name>`, the name kept readable and safe. */
export function attachmentPath(transcript: string, position: number, filename: string): string {
  const folder = transcript.replace(/^sessions\//, "").replace(/\.md$/, "");
  const safe =
    Array.from(filename, (char) => (char === "/" || char === "\\" || char.charCodeAt(0) < 32 ? "_" : char))
      .join("")
      .replace(/^\.+/, "_")
      .slice(0, 120) || "file";
  return `attachments/${folder}/${String(position + 1).padStart(2, "0")}-${safe}`;
}

function readme(data: PersonData, exportedAt: Date, files: string[]): string {
  return [
    `# Your data in Skillnet`,
    "",
    `Exported ${exportedAt.toISOString()} for ${String(data.profile.name)} <${String(data.profile.email)}>.`,
    "",
    "- `data.json`: everything below, in JSON: your profile, every chat session with its messages",
    "  (answers with the citations they gave), your ratings of answers, enrolments, skill levels,",
    "  exercise attempts, review schedules and the single sign-on identities linked to you.",
    `- \`sessions/\`: each of your ${data.sessions.length} conversations as a readable transcript.`,
    "",
    ...files.map((file) => `  - ${file}`),
    "",
  ].join("\n");
}

export interface BuiltArchive {
  zip: Buffer;
  counts: Record<string, number>;
}

/** An attached file's bytes by id; undefined when it went meanwhile (written as an empty file). */
export type ReadAttachment = (attachmentId: string) => Promise<Buffer | undefined>;

const noAttachmentReader: ReadAttachment = async (attachmentId) => {
  throw new Error(`no reader for attachment ${attachmentId}`);
};

export async function buildExportArchive(data: PersonData, exportedAt: Date, readAttachment: ReadAttachment = noAttachmentReader): Promise<BuiltArchive> {
  const pause = yielder();
  const personName = String(data.profile.name ?? "You");
  const names = data.sessions.map((session, index) => `sessions/${String(index + 1).padStart(3, "0")}-${slug(session.title)}.md`);
  // Attached files go beside data.json (its `file` names where), never into it.
  const sessions = data.sessions.map((session, index) =>
    session.attachments
      ? {
          ...session,
          attachments: session.attachments.map((attachment, position) => ({
            ...attachment,
            file: attachmentPath(names[index]!, position, attachment.filename),
          })),
        }
      : session,
  );
  const json = await exportJson({ exported_at: exportedAt.toISOString(), format: "skillnet-person-export/1", ...data, sessions }, pause);
  const zip = new ZipFile();
  // The entries' MS-DOS time fields hold UTC whatever the server's zone, as the export has always
  // written them: yazl writes local time, so the date is moved by the zone's offset, and its exact
  // Info-ZIP time field, which would then be off by that offset, is left out.
  const stamp = { mtime: new Date(exportedAt.getTime() + exportedAt.getTimezoneOffset() * 60_000), forceDosTimestamp: true, compress: true };
  const add = (name: string, text: string) => zip.addBuffer(Buffer.from(text, "utf8"), name, stamp);
  add("README.md", readme(data, exportedAt, names));
  add("data.json", json);
  for (const [index, session] of data.sessions.entries()) {
    add(names[index]!, sessionTranscript(session, personName));
    for (const [position, attachment] of (session.attachments ?? []).entries()) {
      zip.addReadStreamLazy(attachmentPath(names[index]!, position, attachment.filename), stamp, (done) => {
        readAttachment(attachment.id).then(
          (bytes) => done(null, Readable.from([bytes ?? Buffer.alloc(0)])),
          (error: unknown) => done(error as Error, undefined as unknown as Readable),
        );
      });
    }
    await pause();
  }
  zip.end();
  const counts = {
    sessions: data.sessions.length,
    attachments: data.sessions.reduce((sum, session) => sum + (session.attachments?.length ?? 0), 0),
    messages: data.sessions.reduce((sum, session) => sum + session.messages.length, 0),
    feedback: data.feedback.length,
    enrolments: data.enrolments.length,
    skills: data.skills.length,
    exercise_attempts: data.exercise_attempts.length,
    review_schedules: data.review_schedules.length,
    identity_links: data.identity_links.length,
  };
  // A file that cannot be read fails the zip (yazl emits on the ZipFile, not on its output stream).
  const failed = new Promise<never>((_, reject) => zip.once("error", reject));
  const drained = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  })();
  return { zip: await Promise.race([drained, failed]), counts };
}
