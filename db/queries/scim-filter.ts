/**
 * A SCIM filter as the data layer applies it: conditions on the attributes the query modules
 * map to columns, OR-ed groups of AND-ed conditions (what `userName eq "a" and active eq true`
 * or `displayName eq "A" or displayName eq "B"` parse to). The server parses the filter text with
 * the SCIM library and refuses what it cannot express this way; nothing here parses text.
 */
import type { Knex } from "knex";

export type ScimOperator = "eq" | "ne" | "co" | "sw" | "ew" | "pr";

export interface ScimCondition {
  attribute: string;
  op: ScimOperator;
  value?: string | boolean;
}

/** OR of AND groups; empty = no filter. */
export type ScimWhere = ScimCondition[][];

export interface ScimColumn {
  /** A column or expression; a uuid column as `id::text`, so a value that is no uuid matches nothing instead of failing. */
  column: string;
  /** Compared lower-cased (SCIM `caseExact: false`). */
  caseInsensitive?: boolean;
  boolean?: boolean;
}

const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function applyCondition(q: Knex.QueryBuilder, condition: ScimCondition, column: ScimColumn): void {
  // Columns are this module's callers' constants, never request text, so they go into SQL as written (`id::text` included).
  if (condition.op === "pr") {
    q.whereRaw(`${column.column} IS NOT NULL`);
    return;
  }
  if (column.boolean) {
    if (condition.op === "eq") q.where(column.column, condition.value === true);
    else q.whereNot(column.column, condition.value === true);
    return;
  }
  const value = String(condition.value ?? "");
  const target = column.caseInsensitive ? `lower(${column.column})` : column.column;
  const operand = column.caseInsensitive ? value.toLowerCase() : value;
  switch (condition.op) {
    case "eq":
      q.whereRaw(`${target} = ?`, [operand]);
      break;
    case "ne":
      q.where((inner) => inner.whereRaw(`${target} <> ?`, [operand]).orWhereRaw(`${column.column} IS NULL`));
      break;
    case "co":
      q.whereRaw(`${target} LIKE ?`, [`%${escapeLike(operand)}%`]);
      break;
    case "sw":
      q.whereRaw(`${target} LIKE ?`, [`${escapeLike(operand)}%`]);
      break;
    case "ew":
      q.whereRaw(`${target} LIKE ?`, [`%${escapeLike(operand)}`]);
      break;
  }
}

/**
 * Adds the filter to `query`. `custom` handles attributes that are not one column (a group's
 * members); every other attribute must be in `columns` (the server checked it).
 */
export function applyScimWhere(
  query: Knex.QueryBuilder,
  where: ScimWhere,
  columns: Record<string, ScimColumn>,
  custom: Record<string, (q: Knex.QueryBuilder, condition: ScimCondition) => void> = {},
): void {
  if (where.length === 0) return;
  query.where((outer) => {
    for (const group of where) {
      outer.orWhere((inner) => {
        for (const condition of group) {
          const handler = custom[condition.attribute];
          if (handler) handler(inner, condition);
          else {
            const column = columns[condition.attribute];
            if (!column) throw new Error(`no column for SCIM attribute ${condition.attribute}`);
            applyCondition(inner, condition, column);
          }
        }
      });
    }
  });
}
