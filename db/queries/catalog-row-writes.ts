/**
 * One catalog row written only when it differs from the record: stored values are compared the
 * way Postgres keeps them (dates by instant, numbers by value, jsonb by content), so a repeated
 * sync that says what is already there touches no row (`unchanged`).
 */
import type { Writer } from "./catalog-references";

export type ApplyResult = "created" | "updated" | "unchanged" | "deleted";

/** Compares a stored value with a record's: dates by instant, numbers by value, JSON by content. */
function same(stored: unknown, wanted: unknown): boolean {
  if (wanted instanceof Json) return same(stored, wanted.value);
  if (stored === null || stored === undefined) return wanted === null || wanted === undefined;
  if (wanted === null || wanted === undefined) return false;
  if (stored instanceof Date) return typeof wanted === "string" && stored.getTime() === Date.parse(wanted);
  if (typeof wanted === "number") return Number(stored) === wanted;
  if (typeof wanted === "object") return canonical(stored) === canonical(wanted);
  return stored === wanted;
}

/** JSON with object keys sorted, as jsonb stores them in an order of its own. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

const unchangedFrom = (row: Record<string, unknown>, values: Record<string, unknown>): boolean =>
  Object.entries(values).every(([column, value]) => same(row[column], value));

/** A jsonb column's value: compared by content, written as JSON text (a bare string is JSON too). */
export class Json {
  constructor(readonly value: unknown) {}
}

const columnValue = (value: unknown): unknown => (value instanceof Json ? (value.value === null ? null : JSON.stringify(value.value)) : value);

/** Inserts or updates the row named by `where`, reporting which; `prepare` runs before a write to an existing row or a new one. */
export async function upsertRow(
  w: Writer,
  table: string,
  where: Record<string, unknown>,
  values: Record<string, unknown>,
  prepare?: (existing: Record<string, unknown> | undefined) => Promise<void>,
): Promise<ApplyResult> {
  const existing = (await w
    .trx(table)
    .where({ org_id: w.orgId, ...where })
    .first(["id", ...Object.keys(values)])) as Record<string, unknown> | undefined;
  if (existing && unchangedFrom(existing, values)) return "unchanged";
  await prepare?.(existing);
  const row = Object.fromEntries(Object.entries(values).map(([column, value]) => [column, columnValue(value)]));
  if (existing) {
    await w.trx(table).where({ id: existing.id }).update(row);
    return "updated";
  }
  await w.trx(table).insert({ org_id: w.orgId, ...where, ...row });
  return "created";
}
