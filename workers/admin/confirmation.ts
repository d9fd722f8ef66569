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
 * It reads English and Spanish, and the plain yes, no and stop of French, German and Portuguese
 * (the languages of the catalog, lib/messages.ts, whose action lines ask for those words).
 */
import { foldAccents } from "../../lib/language";

export type ReplyKind = "confirm" | "reject" | "new_request" | "question" | "unclear";

/** A plain confirmation or rejection is short; a longer reply is read as something else. */
const MAX_PLAIN_TOKENS = 12;
const MAX_PLAIN_CHARS = 160;
/** Up to this many tokens, a reply that is neither is answered with the fixed reminder, not by the model. */
const MAX_UNCLEAR_TOKENS = 3;

/** Two or more of one letter count as one ("yesss", "siii", "okk"); dictionary entries are squeezed the same way. */
const squeeze = (word: string): string => word.replace(/(\p{L})\1+/gu, "$1");
const squeezedSet = (words: string): Set<string> => new Set(words.split(" ").map(squeeze));

type Category = "yes" | "no" | "stop" | "polite" | "filler" | "and";

const phrases = (category: Category, list: string): Array<[Category, string]> => list.split(",").map((phrase) => [category, phrase.trim()]);

// Written without accents and apostrophes as typed ("don't" and "dont" both fold to "dont").
const LEXICON: Array<[Category, string]> = [
  ...phrases(
    "yes",
    "yes, yeah, yea, yep, yup, yes sir, sure, sure thing, ok, okay, okey, oki, alright, all right, confirm, confirmed, i confirm, " +
      "approve, approved, i approve, proceed, please proceed, go, go ahead, go on, go for it, do it, run it, lets do it, lets go, " +
      "sounds good, looks good, lgtm, correct, thats right, thats correct, absolutely, definitely, of course, certainly, agreed, affirmative, " +
      "please do, yes please, 👍, ✅, 👌, ✔",
  ),
  ...phrases(
    "yes",
    "si, sip, claro, claro que si, vale, dale, venga, adelante, hazlo, confirmo, confirmado, confirmada, confirmar, confirma, " +
      "de acuerdo, por supuesto, esta bien, me parece bien, procede, ejecuta, ejecutalo, ejecutala, correcto, exacto, eso es, " +
      "afirmativo, aprobado, apruebo, perfecto, sigue, adelante con ello",
  ),
  // French, German and Portuguese: the plain words an admin of those languages answers with (lib/messages.ts asks for them).
  ...phrases(
    "yes",
    "oui, ouais, daccord, vas y, allez y, je confirme, confirme, bien sur, parfait, " +
      "ja, jawohl, klar, genau, mach es, mach das, bestatigt, ich bestatige, einverstanden, in ordnung, " +
      "sim, pode, pode ser, confirmo sim, certo, com certeza, avance, avanca, faca, faz isso",
  ),
  ...phrases(
    "no",
    "non, non merci, annule, annuler, annule le, surtout pas, pas maintenant, " +
      "nein, nein danke, abbrechen, brich ab, lieber nicht, jetzt nicht, " +
      "nao, nao obrigado, nao obrigada, agora nao, melhor nao, de jeito nenhum",
  ),
  ...phrases(
    "no",
    "no, nope, nah, no thanks, no thank you, cancel, cancel it, cancel that, cancel this, reject, reject it, mejor no, better not, " +
      "not now, never mind, nevermind, forget it, dont, do not, dont do it, do not do it, dont run it, stop, abort, no way, " +
      "i dont think so, negative, 👎, ❌",
  ),
  ...phrases(
    "no",
    "cancela, cancelar, cancelalo, cancelala, cancela eso, cancelalo todo, rechazar, rechazo, rechazala, rechazalo, ahora no, " +
      "olvidalo, dejalo, no lo hagas, no hagas nada, para, ni hablar, de ninguna manera, creo que no, negativo",
  ),
  ...phrases(
    "polite",
    "please, pls, plz, thanks, thank you, thx, ty, cheers, por favor, porfa, porfavor, gracias, muchas gracias, mil gracias, " +
      "merci, sil te plait, sil vous plait, stp, svp, bitte, danke, obrigado, obrigada",
  ),
  ...phrases("filler", "then, now, right now, entonces, ya, ahora, ahora mismo"),
  ...phrases("and", "and, y"),
];

/** Phrases that stop a running action, read only while one runs; politeness, fillers and "and" as above. */
const STOP_LEXICON: Array<[Category, string]> = [
  ...phrases(
    "stop",
    "stop, stop it, stop that, stop this, stop the action, stop the run, stop running, stop everything, halt, abort, abort it, pause, pause it, " +
      "cancel, cancel it, cancel the action, enough, ✋, 🛑",
  ),
  ...phrases(
    "stop",
    "para, paralo, parala, para eso, para la accion, paralo todo, parar, detente, deten, detenlo, detenla, deten la accion, detenlo todo, detener, " +
      "cancela, cancelalo, cancelala, aborta, abortar, basta, alto",
  ),
  ...phrases("stop", "arrete, arreter, arrete tout, stoppe, halte, stopp, anhalten, halt an, hor auf, pare, pare tudo, parar tudo"),
  ...LEXICON.filter(([category]) => category === "polite" || category === "filler" || category === "and"),
];

/** Opening a reply, these make it a question even without "?". */
const INTERROGATIVE_OPENERS = squeezedSet(
  "what whats how why when where who whom whose which does do did is are was were can could would should will shall may might have has am isnt arent wont " +
    "que como cual cuales cuando donde quien quienes cuanto cuanta cuantos cuantas porque puedes puede podrias podria hay seguro seguros",
);

/** Anywhere in a reply, these make it conditional or hesitant: answered, never decided. */
const CONDITION_OR_HEDGE = [
  "if",
  "unless",
  "when",
  "whether",
  "in case",
  "as long as",
  "provided",
  "maybe",
  "perhaps",
  "probably",
  "possibly",
  "not sure",
  "unsure",
  "i think",
  "i guess",
  "i suppose",
  "might",
  "kind of",
  "sort of",
  "dunno",
  "dont know",
  "y si",
  "cuando",
  "a menos que",
  "siempre que",
  "en caso de",
  "con tal de",
  "quizas",
  "quiza",
  "tal vez",
  "a lo mejor",
  "creo",
  "supongo",
  "no se",
  "no estoy seguro",
  "no estoy segura",
  "puede que",
].map((phrase) => phrase.split(" ").map(squeeze));

/** Words of an instruction that changes the request: a reply carrying them (and not a question) re-plans it. */
const CHANGE_WORDS = squeezedSet(
  "add also instead change remove include exclude assign enroll enrol deactivate archive verify set make only except plus without replace swap drop move extend postpone " +
    "anade agrega agregar incluye incluir tambien quita quitar excluye cambia cambiar asigna asignar inscribe desactiva archiva verifica pon ponle solo excepto ademas " +
    "sin sustituye reemplaza mueve " +
    "ajoute aussi plutot change retire enleve sauf seulement " +
    "fuge auch stattdessen andere entferne nur ausser ohne " +
    "adiciona acrescenta tambem troca retira tira apenas exceto",
);

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
