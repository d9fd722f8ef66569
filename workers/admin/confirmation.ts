/**
 * Reading an admin's reply to a pending action: the one place that reads the reply's text (the
 * callers switch on the kind it returns). A pending action may deactivate people or enrol
 * thousands, so a reply confirms only when it is plainly and only a confirmation: the whole reply
 * is made of affirmative phrases ("yes", "sí, adelante", "go ahead"), politeness ("please",
 * "gracias") and plain punctuation, with no question mark and nothing else. This is a positive
 * grammar, not a list of words to avoid: a word it does not know ("if", "sure?", "not", "pero")
 * makes the reply something other than a confirmation. Rejections follow the same rule with
 * negative phrases ("no", "cancel", "no, gracias", "mejor no").
 *
 * Everything else is told apart only to choose who answers it; none of it confirms:
 * - `question`: a question, a condition, a hedge, or a longer remark ("What happens if I say
 *   yes?", "si puedes, hazlo mañana", "I'm not sure about this"). The model answers it and the
 *   action stays pending; a question about the proposal never rejects it either.
 * - `new_request`: an instruction that changes the request ("wait, add María too", "sí, pero
 *   quita a Bo"): the action is rejected and the request planned again, as a new proposal that
 *   needs its own confirmation.
 * - `unclear`: a short reply that is neither ("wait", "hmm", "yeah right"): a fixed reminder.
 *
 * A stop of the session's running action (`isStopRequest`) is read by the same grammar with stop
 * phrases ("stop", "para", "detén"): "what happens if I stop?" or "¿qué pasa si paro?" is a
 * question, never a stop.
 *
 * The specification is the table in docs/confirmation-replies.md: every row is a test case.
 * It reads the words of every language pack (lib/languages/): the catalog's action lines
 * (lib/messages.ts) ask for each language's own plain yes and no.
 */
import { foldAccents } from "../../lib/language";
import { PACKS } from "../../lib/languages";

export type ReplyKind = "confirm" | "reject" | "new_request" | "question" | "unclear";

/** A plain confirmation or rejection is short; a longer reply is read as something else. */
const MAX_PLAIN_TOKENS = 12;
const MAX_PLAIN_CHARS = 160;
/** Up to this many tokens, a reply that is neither is answered with the fixed reminder, not by the model. */
const MAX_UNCLEAR_TOKENS = 3;

/** Two or more of one letter count as one ("yesss", "siii", "okk"); dictionary entries are squeezed the same way. */
const squeeze = (word: string): string => word.replace(/(\p{L})\1+/gu, "$1");

type Category = "yes" | "no" | "stop" | "polite" | "filler" | "and";

const phrasesOf = (category: Category, list: readonly string[]): Array<[Category, string]> => list.map((phrase) => [category, phrase]);

/** What a plain reply may carry beside its yes, no or stop, in every language. */
const CARRIERS: Array<[Category, string]> = PACKS.flatMap((pack) => [
  ...phrasesOf("polite", pack.confirmation.polite),
  ...phrasesOf("filler", pack.confirmation.fillers),
  ...phrasesOf("and", pack.confirmation.and),
]);

// Every pack's words, written without accents and apostrophes as typed ("don't" and "dont" both fold to "dont").
const LEXICON: Array<[Category, string]> = [
  ...PACKS.flatMap((pack) => [...phrasesOf("yes", pack.confirmation.yes), ...phrasesOf("no", pack.confirmation.no)]),
  ...CARRIERS,
];

/** Phrases that stop a running action, read only while one runs; politeness, fillers and "and" as above. */
const STOP_LEXICON: Array<[Category, string]> = [...PACKS.flatMap((pack) => phrasesOf("stop", pack.confirmation.stop)), ...CARRIERS];

/** Opening a reply, these make it a question even without "?". */
const INTERROGATIVE_OPENERS = new Set(PACKS.flatMap((pack) => pack.confirmation.questionOpeners).map(squeeze));

/** Anywhere in a reply, these make it conditional or hesitant: answered, never decided. */
const CONDITION_OR_HEDGE = PACKS.flatMap((pack) => pack.confirmation.hedges).map((phrase) => phrase.split(" ").map(squeeze));

/** Words of an instruction that changes the request: a reply carrying them (and not a question) re-plans it. */
const CHANGE_WORDS = new Set(PACKS.flatMap((pack) => pack.confirmation.changeWords).map(squeeze));

interface Token {
  word: string;
  /** Only spaces between this token and the next (no comma or stop). */
  joinedToNext: boolean;
}

const TOKEN = /[\p{L}\p{N}']+|\p{Extended_Pictographic}/gu;
/** What a plain reply may hold besides its words: spaces, ¡!, stops, commas and dashes (emoji variation selectors and skin tones are dropped first). */
const PLAIN_REST = /^[\s!¡.,;:…\-–—]*$/u;
const EMOJI_MODIFIERS = /\u{FE0F}|\p{Emoji_Modifier}/gu;

function tokenize(message: string): { tokens: Token[]; asks: boolean; plainRest: boolean } {
  const text = foldAccents(message.normalize("NFKC")).replace(/[’‘`´]/g, "'");
  const tokens: Token[] = [];
  let rest = "";
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const between = text.slice(last, match.index);
    rest += between;
    const previous = tokens.at(-1);
    if (previous) previous.joinedToNext = /^\s+$/.test(between);
    tokens.push({ word: squeeze(match[0].replaceAll("'", "")), joinedToNext: false });
    last = match.index + match[0].length;
  }
  rest += text.slice(last);
  return { tokens: tokens.filter((t) => t.word !== ""), asks: /[?¿]/.test(text), plainRest: PLAIN_REST.test(rest.replace(EMOJI_MODIFIERS, "")) };
}

type Entry = { category: Category; words: string[] };

/** Longest phrase first, so "stop it" is one phrase rather than "stop" and a word it does not know. */
const entriesOf = (lexicon: Array<[Category, string]>): Entry[] =>
  lexicon.map(([category, phrase]) => ({ category, words: phrase.split(" ").map((w) => squeeze(w)) })).sort((a, b) => b.words.length - a.words.length);

const ENTRIES = entriesOf(LEXICON);
const STOP_ENTRIES = entriesOf(STOP_LEXICON);

function startsAt(words: string[], at: number, phrase: string[]): boolean {
  return phrase.every((word, i) => words[at + i] === word);
}

/** The categories the reply is made of, if every word of it belongs to a phrase of the lexicon (longest phrase first). */
function coverage(words: string[], entries: Entry[] = ENTRIES): Category[] | null {
  const found: Category[] = [];
  let at = 0;
  while (at < words.length) {
    const entry = entries.find((candidate) => startsAt(words, at, candidate.words));
    if (!entry) return null;
    found.push(entry.category);
    at += entry.words.length;
  }
  return found;
}

/** Made only of `wanted` phrases, politeness, fillers and "and" between phrases (never first or last). */
function plainly(categories: Category[], wanted: "yes" | "no" | "stop"): boolean {
  if (!categories.includes(wanted)) return false;
  if (categories[0] === "and" || categories.at(-1) === "and") return false;
  return categories.every((category) => category === wanted || category === "polite" || category === "filler" || category === "and");
}

function hasPhrase(words: string[], phrase: string[]): boolean {
  return words.some((_, at) => startsAt(words, at, phrase));
}

/** "si" followed straight by a word that is not a yes ("si puedes…", "si alguien…") is the conditional "if". */
function conditionalSi(tokens: Token[]): boolean {
  return tokens.some((token, i) => {
    const next = tokens[i + 1];
    return token.word === "si" && token.joinedToNext && next !== undefined && coverage([next.word])?.[0] !== "yes";
  });
}

export function classifyReply(message: string): ReplyKind {
  const { tokens, asks, plainRest } = tokenize(message);
  const words = tokens.map((token) => token.word);
  if (!asks && plainRest && words.length <= MAX_PLAIN_TOKENS && message.length <= MAX_PLAIN_CHARS) {
    const categories = coverage(words);
    if (categories && plainly(categories, "yes")) return "confirm";
    if (categories && plainly(categories, "no")) return "reject";
  }
  const questioning =
    asks ||
    (words[0] !== undefined && INTERROGATIVE_OPENERS.has(words[0])) ||
    CONDITION_OR_HEDGE.some((phrase) => hasPhrase(words, phrase)) ||
    conditionalSi(tokens);
  if (questioning) return "question";
  if (words.some((word) => CHANGE_WORDS.has(word))) return "new_request";
  return words.length <= MAX_UNCLEAR_TOKENS ? "unclear" : "question";
}

/**
 * Whether the reply is plainly and only a stop ("stop", "para ya", "detén, por favor", "🛑"): the
 * same positive grammar as a confirmation, over stop phrases, so a question ("what happens if I
 * stop?", "¿qué pasa si paro?"), a condition or any word the rule does not know is not a stop.
 */
export function isStopRequest(message: string): boolean {
  const { tokens, asks, plainRest } = tokenize(message);
  if (asks || !plainRest || tokens.length > MAX_PLAIN_TOKENS || message.length > MAX_PLAIN_CHARS) return false;
  const categories = coverage(
    tokens.map((token) => token.word),
    STOP_ENTRIES,
  );
  return categories !== null && plainly(categories, "stop");
}
