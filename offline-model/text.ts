/**
 * Word-level text helpers shared by the offline model and the hashed embeddings. Both must agree
 * on what "a word" is (accent-folded, lower-case, stop words removed), otherwise what retrieval
 * finds and what the offline model decides is relevant would drift apart.
 */
import { foldAccents } from "../lib/language";
import { PACKS, SHARED_ACKNOWLEDGEMENTS } from "../lib/languages";
import type { ChatMessage } from "./responder";

/**
 * The function words of English and Spanish only: one language-blind list for every text, so
 * another language's function words would drop English content words from every embedding
 * ("die", "man", "son", "come"); French, German, Portuguese and Italian text keeps them (tested).
 */
const OFFLINE_STOP = `a an the and or but if of to in on at by for with from as is are was were be been being am
do does did doing have has had having i me my we our you your he she it its they them their this that these those
what which who whom whose when where why how can could should would will shall may might must not no so than too
very just also about into over under then there here all any some such only own same other each more most
please hi hello hey thanks thank let get got there's what's it's i'm don't
a al algo algun alguna como con contra cual cuales cuando cuanto cuanta cuantos cuantas de del
desde donde dos el ella ellas ellos en entre era eres es esa ese eso esta estan estas este esto estos fue ha han
hasta hay la las le les lo los me mi mis mucho muy nada ni no nos nosotros o os otra otro para pero poco por porque
puedo puede que quien se sea ser si sin sobre son su sus tambien te tengo tiene tienen tu tus un una unas uno unos
usted y ya yo hola gracias`.split(/\s+/);

export const STOP_WORDS: ReadonlySet<string> = new Set(OFFLINE_STOP);

/** Unicode letter/digit runs of the folded text. */
export function words(text: string): string[] {
  return foldAccents(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Words that carry meaning: no stop words, no single letters (single digits are kept: "3 days"). */
export function contentWords(text: string): string[] {
  return words(text).filter((word) => !STOP_WORDS.has(word) && (word.length > 1 || /\d/.test(word)));
}

/**
 * A crude stem: singular, then the first five letters. Crude on purpose — it only has to make
 * "return"/"returns"/"returned" and "policy"/"policies" meet, in either language, deterministically.
 */
export function stem(word: string): string {
  const singular = word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word;
  return singular.slice(0, 5);
}

export function stemSet(text: string): Set<string> {
  return new Set(contentWords(text).map(stem));
}

/** How many stems two texts share. */
export function sharedStems(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let count = 0;
  for (const item of a) if (b.has(item)) count += 1;
  return count;
}

/** Splits prose into sentences; only splits before a capital/digit so "p. 3" and "e.g. x" survive. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((paragraph) => paragraph.split(/(?<=[.!?…])\s+(?=[\p{Lu}\p{N}¿¡"“(])/u))
    .map((sentence) => sentence.trim())
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

/** The text of a message, whether `content` is a string or an array of parts. */
export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
}

const SMALL_TALK: readonly string[] = [...PACKS.flatMap((pack) => [...pack.greetings, ...pack.thanks, ...pack.acknowledgements]), ...SHARED_ACKNOWLEDGEMENTS];

/**
 * The words of every pack's small talk (lib/languages/) that carry it: the content words of each
 * phrase, or its first word when all of them are stop words ("thank you"), so that "you" or
 * "que" alone never reads as a greeting.
 */
const GREETING_WORDS = new Set(
  SMALL_TALK.flatMap((phrase) => {
    const all = phrase.split(" ");
    const carrying = all.filter((word) => !STOP_WORDS.has(word));
    return carrying.length > 0 ? carrying : all.slice(0, 1);
  }),
);

/** Thanks phrases as word sequences: a message holding one whole is thanks ("thank you so much", "muchas gracias"). */
const THANKS = PACKS.flatMap((pack) => pack.thanks).map((phrase) => ` ${phrase} `);

/** A message that is only a greeting, thanks or small talk (every content word is a greeting word). */
export function isGreeting(text: string): boolean {
  const all = words(text);
  if (!all.some((word) => GREETING_WORDS.has(word))) return false;
  return contentWords(text).every((word) => GREETING_WORDS.has(word));
}

export function isThanks(text: string): boolean {
  const joined = ` ${words(text).join(" ")} `;
  return THANKS.some((phrase) => joined.includes(phrase));
}
