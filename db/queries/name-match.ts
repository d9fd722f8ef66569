/**
 * Matching what an admin typed ("lucia", "Returns") against names in the database: case- and
 * accent-insensitive, exact match first, then containment. Callers get every match and decide;
 * nothing here ever picks one of several rows (that would be a guess).
 */
import { foldAccents } from "../../lib/language";
const ACCENTED = "áàäâãéèëêíìïîóòöôõúùüûñç";
const PLAIN = "aaaaaeeeeiiiiooooouuuunc";

/** SQL for the folded form of a column: lower case, common Spanish/English accents removed. */
export function foldedSql(column: string): string {
  return `translate(lower(${column}), '${ACCENTED}', '${PLAIN}')`;
}

/** The same folding in JS, so bound values compare with `foldedSql` columns. */
export function foldName(text: string): string {
  return foldAccents(text.trim()).replace(/\s+/g, " ");
}

/** A LIKE pattern matching `text` anywhere, with LIKE's own wildcards escaped. */
export function containsPattern(text: string): string {
  return `%${foldName(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
