/**
 * A person chooses the language of their pages (the switch in the tutor and the console,
 * PATCH /api/v1/me): saved with its `person.page_language_changed` audit row in one transaction.
 * Their choice outlasts what their identity provider or SCIM later state (db/queries/page-locale-writes.ts).
 */
import { recordAudit } from "../db/queries/audit-log";
import { choosePageLocale } from "../db/queries/page-locale-writes";
import type { CommandDeps } from "./deps";
import { withTransaction } from "./transaction";

/** False when the person no longer exists. */
export async function choosePageLanguage(deps: Pick<CommandDeps, "db">, input: { orgId: string; userId: string; pageLocale: string | null }): Promise<boolean> {
  return withTransaction(deps, async (trx) => {
    const changed = await choosePageLocale(trx, input.orgId, input.userId, input.pageLocale);
    if (!changed) return false;
    if (changed.before !== input.pageLocale) {
      await recordAudit(trx, {
        name: "person.page_language_changed",
        orgId: input.orgId,
        actor: { type: "person", id: input.userId },
        target: { type: "user", id: input.userId },
        before: { page_locale: changed.before },
        after: { page_locale: input.pageLocale },
      });
    }
    return true;
  });
}
