/**
 * The person in admins' assistant sessions (review F5): an admin who looked them up keeps their
 * id in the stored tool-call arguments (`chat_messages.metadata.tool_calls[].arguments`), their
 * name and email in the assistant's answers and in what the admin typed, and all three in the
 * session's title and summary. The erasure replaces each mention with "[erased person]"
 * (lib/person-mentions.ts: id, email, full name with word boundaries, any case, accents or not);
 * the sessions and everything else in them stay — they are the admin's.
 *
 * SQL narrows the rows with plain substring tests (the id, the email, a folded piece of each
 * name); the precise match runs here on what that finds, `batchRows` at a time, each batch one
 * transaction that adds its count to the record. A scrubbed row no longer matches, so a repeated
 * or resumed run changes nothing more.
 */
import type { Knex } from "knex";
import { findPerson, type MentionFinder } from "../../lib/person-mentions";
import type { Db } from "../knex";
import { foldedProbe, foldedSql } from "./name-match";
import { addErased, type ErasureOfPerson } from "./person-erasure";

type OnBatch = (kind: string, count: number) => Promise<void>;

interface Probe {
  finder: MentionFinder;
  /** `lower(column)` contains one of these (id, email). */
  exact: string[];
  /** `foldedSql(column)` contains one of these (a piece of each name). */
  folded: string[];
}

/** How to find the person (read from their row, which is anonymised only after these steps). */
async function probeFor(db: Db, erasure: ErasureOfPerson): Promise<Probe | undefined> {
  const person = await db("users").where({ id: erasure.userId, org_id: erasure.orgId }).first("email", "name", "given_name", "family_name", "erased_at");
  if (!person || person.erased_at) return undefined;
  const parts = [person.given_name, person.family_name].filter((part: string | null) => part?.trim());
  const names = [person.name, ...(parts.length === 2 ? [parts.join(" ")] : [])].filter((name: string | null): name is string => Boolean(name?.trim()));
  return {
    finder: findPerson({ ids: [erasure.userId], emails: [person.email], names }),
    exact: [erasure.userId, String(person.email).toLowerCase()],
    folded: [...new Set(names.map(foldedProbe).filter((probe) => probe.length > 0))],
  };
}

/** `(… OR …)`: one of the columns holds one of the probe's pieces. */
function candidates(probe: Probe, columns: string[]): { sql: string; bindings: string[] } {
  const clauses = columns.flatMap((column) => [
    ...probe.exact.map((needle) => ({ sql: `position(?::text in lower(coalesce(${column}::text, ''))) > 0`, needle })),
    ...probe.folded.map((needle) => ({ sql: `position(?::text in ${foldedSql(`coalesce(${column}::text, '')`)}) > 0`, needle })),
  ]);
  return { sql: `(${clauses.map((clause) => clause.sql).join(" OR ")})`, bindings: clauses.map((clause) => clause.needle) };
}

const ADMIN_SESSIONS = "SELECT id FROM chat_sessions WHERE org_id = ? AND agent_type = 'admin'";

/** Reads the candidate rows after `after` (by id), a page at a time. */
function messagePage(db: Db | Knex.Transaction, erasure: ErasureOfPerson, probe: Probe, after: string, limit: number) {
  const where = candidates(probe, ["m.content", "m.metadata"]);
  return db.raw(
    `SELECT m.id, m.turn_id, m.content, m.metadata FROM chat_messages m
      WHERE m.org_id = ? AND m.session_id IN (${ADMIN_SESSIONS}) AND m.id > ?::uuid AND ${where.sql}
      ORDER BY m.id LIMIT ?`,
    [erasure.orgId, erasure.orgId, after, ...where.bindings, limit],
  );
}

interface MessageRow {
  id: string;
  turn_id: string;
  content: string;
  metadata: unknown;
}

const FIRST_ID = "00000000-0000-0000-0000-000000000000";

/** The admin turns whose stored messages name the person: their Redis keys (the streamed answer's log, checkpoints) go before the rows are scrubbed. */
export async function adminTurnsNamingPerson(db: Db, erasure: ErasureOfPerson, pageRows: number): Promise<string[]> {
  const probe = await probeFor(db, erasure);
  if (!probe) return [];
  const turns = new Set<string>();
  for (let after = FIRST_ID; ; ) {
    const { rows } = (await messagePage(db, erasure, probe, after, pageRows)) as { rows: MessageRow[] };
    for (const row of rows) if (probe.finder.mentions(row.content) || probe.finder.scrubJson(row.metadata).changed) turns.add(row.turn_id);
    if (rows.length < pageRows) return [...turns];
    after = rows[rows.length - 1]!.id;
  }
}

/** Replaces the person in admin sessions' messages (content and metadata), titles and summaries. */
export async function scrubAdminChats(db: Db, erasure: ErasureOfPerson, batchRows: number, onBatch: OnBatch): Promise<void> {
  const probe = await probeFor(db, erasure);
  if (!probe) return;
  for (let after = FIRST_ID; ; ) {
    const { rows } = (await messagePage(db, erasure, probe, after, batchRows)) as { rows: MessageRow[] };
    const changed = await db.transaction(async (trx) => {
      let count = 0;
      for (const row of rows) {
        const content = probe.finder.scrub(row.content);
        const metadata = probe.finder.scrubJson(row.metadata);
        if (content === row.content && !metadata.changed) continue;
        await trx("chat_messages")
          .where({ id: row.id, org_id: erasure.orgId })
          .update({ content, metadata: JSON.stringify(metadata.value) });
        count += 1;
      }
      await addErased(trx, erasure.id, { "scrubbed.admin_chat_messages": count });
      return count;
    });
    if (changed > 0) await onBatch("scrubbed.admin_chat_messages", changed);
    if (rows.length < batchRows) break;
    after = rows[rows.length - 1]!.id;
  }
  const where = candidates(probe, ["title", "summary"]);
  const { rows: sessions } = await db.raw(`SELECT id, title, summary FROM chat_sessions WHERE org_id = ? AND agent_type = 'admin' AND ${where.sql}`, [
    erasure.orgId,
    ...where.bindings,
  ]);
  let scrubbed = 0;
  for (const session of sessions as Array<{ id: string; title: string | null; summary: string | null }>) {
    const title = session.title === null ? null : probe.finder.scrub(session.title);
    const summary = session.summary === null ? null : probe.finder.scrub(session.summary);
    if (title === session.title && summary === session.summary) continue;
    await db.transaction(async (trx) => {
      await trx("chat_sessions").where({ id: session.id, org_id: erasure.orgId }).update({ title, summary });
      await addErased(trx, erasure.id, { "scrubbed.admin_chat_sessions": 1 });
    });
    scrubbed += 1;
  }
  if (scrubbed > 0) await onBatch("scrubbed.admin_chat_sessions", scrubbed);
}
