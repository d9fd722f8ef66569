/**
 * Asking for a person's data to be exported or erased: the record is written first (for an export,
 * with its audit row; for an erasure, the person locked out in the same transaction), then the
 * `person-data` job is queued;
 * when the queue refuses, the record is marked failed and the caller told to ask again. Asking
 * again while one is under way answers that one. The jobs themselves are workers/person-data/.
 */
import {
  downloadExportArchive,
  type ExportOwner,
  type ExportRequester,
  failExport,
  openPersonExport,
  type PersonExportRow,
} from "../db/queries/person-exports";
import { failPersonErasure, findErasureTarget, openPersonErasure, type PersonErasureRow } from "../db/queries/person-erasure";
import { Refusal } from "../lib/refusal";
import { UserEventPublisher } from "../queues/events/user-events";
import type { CommandDeps } from "./deps";

const queueRefused = (what: string, error: unknown) =>
  new Refusal("unavailable", "QUEUE_UNAVAILABLE", `The ${what} could not be queued (Redis refused it). Ask again.`, undefined, { cause: error });

const erasedRefusal = () => new Refusal("conflict", "PERSON_ERASED", "This person's data was erased; there is nothing of theirs left to export or erase.");

/** An export of the person's data, for themselves (`self`) or for an admin of their organisation (`admin`). */
export async function requestPersonExport(
  deps: CommandDeps,
  request: { orgId: string; personId: string; requestedBy: string; via: ExportRequester },
): Promise<PersonExportRow> {
  const person = await findErasureTarget(deps.db, request.orgId, request.personId);
  if (!person) throw Refusal.notFound("Person");
  // From the erasure's request on there is nothing to export: what is left is being deleted.
  if (person.erased_at || person.erasure_requested_at) throw erasedRefusal();
  const { row, queue } = await openPersonExport(deps.db, { orgId: request.orgId, userId: request.personId, via: request.via }, request.requestedBy);
  if (!queue) return row;
  try {
    await deps.producer.enqueuePersonData({ kind: "export", orgId: request.orgId, exportId: row.id });
  } catch (error) {
    await failExport(deps.db, row.id, { code: "QUEUE_UNAVAILABLE", message: "the job could not be queued; ask again" });
    throw queueRefused("export", error);
  }
  deps.log.info({ orgId: request.orgId, exportId: row.id, via: request.via }, "person export queued");
  return row;
}

/**
 * One download of an export: the archive, and the audit row of who downloaded whose export, written
 * in the transaction that reads it (review F7). Nothing to serve (unknown, another's, expired) is a
 * 404, as for an unknown id, and audits nothing.
 */
export async function downloadPersonExport(
  deps: Pick<CommandDeps, "db" | "log">,
  request: { owner: ExportOwner; exportId: string; actorId: string },
): Promise<Buffer> {
  const { owner, exportId, actorId } = request;
  const archive = await downloadExportArchive(deps.db, owner, exportId, actorId);
  if (!archive) throw Refusal.notFound("Export");
  deps.log.info({ orgId: owner.orgId, exportId, via: owner.via, actorId }, "person export downloaded");
  return archive;
}

/**
 * An admin's erasure of one person of their organisation. `confirm` must be the person's email
 * (what the admin sees in the console), so an id pasted by mistake erases nobody; an admin does
 * not erase themselves (another admin can), so the organisation always keeps the one who asked.
 */
export async function requestPersonErasure(
  deps: CommandDeps,
  request: { orgId: string; personId: string; adminId: string; confirm: string; keepLearningRecords: boolean },
): Promise<PersonErasureRow> {
  const person = await findErasureTarget(deps.db, request.orgId, request.personId);
  if (!person) throw Refusal.notFound("Person");
  if (person.erased_at) throw erasedRefusal();
  if (person.id === request.adminId) throw new Refusal("conflict", "SELF_ERASURE", "An admin cannot erase themselves; another admin of the organisation can.");
  if (request.confirm.trim().toLowerCase() !== person.email)
    throw new Refusal(
      "invalid",
      "ERASURE_NOT_CONFIRMED",
      "Erasing a person deletes their chats and data and cannot be undone: confirm with their email address as `confirm`.",
    );
  const opened = await openPersonErasure(deps.db, {
    orgId: request.orgId,
    userId: person.id,
    requestedBy: request.adminId,
    keepLearningRecords: request.keepLearningRecords,
  });
  if (!opened) throw erasedRefusal();
  // Their open sockets go now, on every node, not at the gateway's next re-check of accounts.
  new UserEventPublisher(deps.redis).cutSockets(person.id);
  const { erasure, queue } = opened;
  if (!queue) return erasure;
  try {
    await deps.producer.enqueuePersonData({ kind: "erase", orgId: request.orgId, erasureId: erasure.id, run: erasure.runs });
  } catch (error) {
    await failPersonErasure(deps.db, erasure.id, { code: "QUEUE_UNAVAILABLE", message: "the job could not be queued; ask again to retry" });
    throw queueRefused("erasure", error);
  }
  deps.log.info({ orgId: request.orgId, erasureId: erasure.id, run: erasure.runs }, "person erasure queued");
  return erasure;
}
