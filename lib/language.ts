/**
 * The product's two languages (Spanish and English) and the text folding every heuristic compares
 * with: the tutor and the admin assistant, name matching in db/ and the offline model server all
 * use these, so they cannot disagree on what a word is or which language a message is in.
 */

export type Language = "es" | "en";

const SPANISH = new Set(
  "que qué el la los las de del y en es por para cómo como cuál cual cuántos cuantos cuándo cuando puedo tengo hay una un mi mis se con sobre dónde donde hola gracias necesito quiero".split(
    " ",
  ),
);
const ENGLISH = new Set("the is are what how do does i my of to in can when where which a an and for with about hello hi thanks need want have".split(" "));

/**
 * Spanish or English by marker words; Spanish-only punctuation and accented letters count as two
 * Spanish words. A tie (no signal either way) is `fallback`.
 */
export function detectLanguage(text: string, fallback: Language = "en"): Language {
  let es = 0;
  let en = 0;
  for (const word of text.toLowerCase().match(/[\p{L}]+/gu) ?? []) {
    if (SPANISH.has(word)) es++;
    if (ENGLISH.has(word)) en++;
  }
  if (/[¿¡ñáéíóú]/i.test(text)) es += 2;
  if (es === en) return fallback;
  return es > en ? "es" : "en";
}

/** Lower case without accents ("Política" → "politica"): the one accent folding of the product. */
export function foldAccents(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}
