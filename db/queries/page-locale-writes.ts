/**
 * Writes of a person's page language (`users.page_locale`): their own choice, which sticks, and
 * a statement of their identity system (sign-in's `locale` claim, SCIM's `preferredLanguage`),
 * which fills it only while they have not chosen. Called inside a command's transaction.
 */
import type { Db } from "../knex";

/** The person's own choice (null: none, follow the browser again); the previous value for the audit row, undefined when no such person. */
export async function choosePageLocale(db: Db, orgId: string, userId: string, pageLocale: string | null): Promise<{ before: string | null } | undefined> {
  const before = await db("users").select("page_locale").where({ id: userId, org_id: orgId }).forUpdate().first();
  if (!before) return undefined;
  await db("users")
    .where({ id: userId, org_id: orgId })
    .update({ page_locale: pageLocale, page_locale_chosen_at: pageLocale === null ? null : db.fn.now() });
  return { before: before.page_locale ?? null };
}

/** What an identity system states, as an update of `users`: it sets the page language unless the person chose one. */
export function statedPageLocale(db: Db, pageLocale: string): ReturnType<Db["raw"]> {
  return db.raw("CASE WHEN page_locale_chosen_at IS NULL THEN ? ELSE page_locale END", [pageLocale]);
}
