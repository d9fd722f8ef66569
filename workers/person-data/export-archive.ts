/**
 * A person's export as one zip: `data.json` (everything, machine-readable: GDPR article 20),
 * `sessions/NNN-title.md` (each conversation as a readable transcript, answers with their
 * sources) and a `README.md` saying what is where. Deflated with node:zlib and written by the
 * same plain zip writer the extractor uses (workers/ingestion/extract/zip-writer.ts), so no
 * archive library is needed; any unzip tool opens it.
 */
import { crc32, deflateRawSync } from "node:zlib";
import type { ExportedSession, PersonData } from "../../db/queries/person-data";
import type { StoredSource } from "../../db/queries/message-metadata";
import { writeZip, type WrittenEntry } from "../ingestion/extract/zip-writer";

const DEFLATE = 8;

function entry(name: string, text: string, modified: Date): WrittenEntry {
  const bytes = Buffer.from(text, "utf8");
  return { name, method: DEFLATE, crc32: crc32(bytes), data: deflateRawSync(bytes), uncompressedSize: bytes.length, modified };
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
  for (const message of session.messages) {
    const who = message.role === "user" ? personName : agent;
    lines.push(`## ${who} — ${iso(message.created_at)}${message.status === "failed" ? " (failed)" : ""}`, "", message.content || "_(no text)_", "");
    if (message.citations.length > 0) lines.push("Sources:", ...message.citations.map(citationLine), "");
  }
  return lines.join("\n");
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

export function buildExportArchive(data: PersonData, exportedAt: Date): BuiltArchive {
  const personName = String(data.profile.name ?? "You");
  const transcripts = data.sessions.map((session, index) => ({
    name: `sessions/${String(index + 1).padStart(3, "0")}-${slug(session.title)}.md`,
    text: sessionTranscript(session, personName),
  }));
  const json = JSON.stringify({ exported_at: exportedAt.toISOString(), format: "skillnet-person-export/1", ...data }, null, 2);
  const entries = [
    entry(
      "README.md",
      readme(
        data,
        exportedAt,
        transcripts.map((file) => file.name),
      ),
      exportedAt,
    ),
    entry("data.json", json, exportedAt),
    ...transcripts.map((file) => entry(file.name, file.text, exportedAt)),
  ];
  const counts = {
    sessions: data.sessions.length,
    messages: data.sessions.reduce((sum, session) => sum + session.messages.length, 0),
    feedback: data.feedback.length,
    enrolments: data.enrolments.length,
    skills: data.skills.length,
    exercise_attempts: data.exercise_attempts.length,
    review_schedules: data.review_schedules.length,
    identity_links: data.identity_links.length,
  };
  return { zip: writeZip(entries), counts };
}
