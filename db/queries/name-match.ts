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

/**
 * A piece of `name` that `foldedSql` of any text writing the name (in any case, with or without
 * these accents) contains: its longest run of plain letters and digits once folded the same way.
 * A cheap SQL pre-filter for a precise match made afterwards (lib/person-mentions.ts).
 */
export function foldedProbe(name: string): string {
  const folded = [...name.toLowerCase()].map((char) => PLAIN[ACCENTED.indexOf(char)] ?? char).join("");
  const runs = folded.match(/[a-z0-9]+/g) ?? [];
  const longest = runs.reduce((best, run) => (run.length > best.length ? run : best), "");
  return longest.length >= 3
    ? longest
    : (folded
        .trim()
        .split(/\s+/)
        .sort((a, b) => b.length - a.length)[0] ?? "");
}

/** The same folding in JS, so bound values compare with `foldedSql` columns. */
export function foldName(text: string): string {
  return foldAccents(text.trim()).replace(/\s+/g, " ");
}

/** A LIKE pattern matching `text` anywhere, with LIKE's own wildcards escaped. */
export function containsPattern(text: string): string {
  return `%${foldName(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
