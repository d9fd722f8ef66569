/**
 * The offline model's tutor answers. With sources it is extractive — it only repeats sentences
 * from the company material and cites them — so a deployment without an LLM still gives grounded,
 * checkable answers. Without sources it gives a short generic reply that cites nothing, because a
 * citation that points at no source would be a lie.
 */
import type { Language } from "../lib/language";
import { detectLanguage, languageOf, readsAs } from "../lib/language-detection";
import { languageNameFor, messagesFor } from "../lib/messages";
import { LABELS, SOURCES_CLOSE, SOURCES_OPEN } from "../lib/prompt-markers";
import { isGreeting, isThanks, splitSentences, stemSet } from "./text";

export interface Source {
  marker: number;
  title: string;
  text: string;
}

const SOURCE_HEADER = /^\s*\[(\d+)\]\s*(.*)$/;
const QUESTION_LINE = new RegExp(`^\\s*(${LABELS.question}|pregunta)\\s*:\\s*(.*)$`, "i");
/** The tutor's delimiters around the sources block (workers/tutor/prompts.ts): frame, not source text. */
const SOURCES_DELIMITER = new RegExp(`^\\s*(?:${SOURCES_OPEN}|${SOURCES_CLOSE})\\s*$`, "i");

/** Reads `[n] Title > Section` blocks until the `Question:` line. */
export function parseSources(text: string): Source[] {
  const sources: Source[] = [];
  let current: Source | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (QUESTION_LINE.test(line) || SOURCES_DELIMITER.test(line)) {
      current = undefined;
      continue;
    }
    const header = SOURCE_HEADER.exec(line);
    if (header) {
      current = { marker: Number(header[1]), title: (header[2] ?? "").trim(), text: "" };
      sources.push(current);
    } else if (current) {
      current.text += `${line}\n`;
    }
  }
  return sources.filter((source) => source.text.trim() !== "");
}

/** The text after `Question:` (and any lines after it); the whole text when there is no such line. */
export function extractQuestion(text: string): string {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => QUESTION_LINE.test(line));
  if (index < 0) return text.trim();
  const first = QUESTION_LINE.exec(lines[index] ?? "")?.[2] ?? "";
  return [first, ...lines.slice(index + 1)].join("\n").trim();
}

export interface Candidate {
  marker: number;
  sentence: string;
  score: number;
  order: number;
  /** Which paragraph (line, after unwrapping) of its source the sentence belongs to. */
  paragraph: number;
}

const MAX_SENTENCES = 3;

/** Puts the citation before the final punctuation: "… 30 days [1]." */
function cite(sentence: string, marker: number): string {
  const match = /^(.*?)([.!?…:;]+)$/s.exec(sentence.trim());
  return match ? `${match[1]} [${marker}]${match[2] === ":" || match[2] === ";" ? "." : match[2]}` : `${sentence.trim()} [${marker}].`;
}

/** A short unpunctuated line is a label, unless it is code or a table row (`toASCII('x') // 'y'`, `| pnpm | pnpx |`), which answer questions. */
function isHeadingLine(sentence: string): boolean {
  if (/^#{1,6}\s/.test(sentence)) return true;
  const words = sentence.split(/\s+/).length;
  return words <= 6 && !/[.!?…:;]$/.test(sentence.trim()) && !/[(){}=|`'"/<>[\]]/.test(sentence);
}

/** A Markdown link reference definition (`[Corepack documentation]: https://…`): an address book, never an answer. */
const LINK_DEFINITION = /^\s*\[[^\]]+\]:\s*\S+/;

/** Lines that start a structure of their own: list items, headings, table rows, quotes, fences. */
const STRUCTURAL_LINE = /^\s*([-*+•]\s|\d{1,3}[.)]\s|#{1,6}\s|\||>|```|~~~)/;

/**
 * Joins hard-wrapped prose lines back into paragraphs. Markdown and plain-text manuals wrap at
 * ~80 columns, and a sentence cut at a line break loses its second half ("the `delay` / will be
 * set to `1`"): the answer would quote half a fact. Structural lines and code fences stay as they are.
 */
export function unwrapLines(text: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of text.split(/\r?\n/)) {
    if (!inFence && LINK_DEFINITION.test(line)) {
      // Dropped, and it ends the paragraph before it: the next line starts afresh.
      out.push("");
      continue;
    }
    const fence = /^\s*(```|~~~)/.test(line);
    const previous = out.at(-1);
    const joinable =
      !inFence &&
      !fence &&
      line.trim() !== "" &&
      !STRUCTURAL_LINE.test(line) &&
      previous !== undefined &&
      previous.trim() !== "" &&
      !/^\s*(\||```|~~~|#{1,6}\s)/.test(previous);
    if (joinable) out[out.length - 1] = `${previous.trimEnd()} ${line.trim()}`;
    else out.push(line);
    if (fence) inFence = !inFence;
  }
  return out.join("\n");
}

/**
 * Every source sentence with its overlap with the question, best first; ties keep reading order.
 * A shared word counts by its rarity among the sources' sentences (ln(1 + n / df)): the word
 * every sentence of a manual repeats ("libffi", "Node.js") says little about which sentence
 * answers, the one word only the answer shares ("default", "2147483647") says a lot.
 */
export function rankSentences(sources: Source[], question: string): Candidate[] {
  const questionStems = stemSet(question);
  const sentences: Array<{ marker: number; sentence: string; stems: Set<string>; paragraph: number }> = [];
  let paragraph = 0;
  for (const source of sources) {
    for (const line of unwrapLines(source.text).split(/\n+/)) {
      paragraph += 1;
      for (const sentence of splitSentences(line)) {
        // Headings ("Carretillas Elevadoras", "## Refunds") are labels, not statements to quote.
        if (!isHeadingLine(sentence)) sentences.push({ marker: source.marker, sentence, stems: stemSet(sentence), paragraph });
      }
    }
  }
  const documentFrequency = new Map<string, number>();
  for (const { stems } of sentences) for (const stem of stems) if (questionStems.has(stem)) documentFrequency.set(stem, (documentFrequency.get(stem) ?? 0) + 1);
  const weight = (stem: string) => Math.log(1 + sentences.length / (documentFrequency.get(stem) ?? 1));
  const candidates: Candidate[] = sentences.map(({ marker, sentence, stems, paragraph }, order) => {
    let score = 0;
    for (const stem of stems) if (questionStems.has(stem)) score += weight(stem);
    return { marker, sentence, score, order, paragraph };
  });
  // Array.prototype.sort is stable, so on equal scores the earlier source wins.
  return candidates.sort((a, b) => b.score - a.score);
}

/**
 * The sentence right after the best one, when it continues the same paragraph and was not chosen
 * already. The best match names what the question asks about; the fact itself is often the
 * sentence after it ("`maxKeys` Specifies the maximum number of keys to parse. … **Default:**
 * `1000`"), which shares no word with the question and so never ranks by itself.
 */
function continuationOf(best: Candidate | undefined, ranked: Candidate[], chosen: Candidate[]): Candidate | undefined {
  if (!best || best.score <= 0) return undefined;
  const next = ranked.find((candidate) => candidate.order === best.order + 1);
  if (!next || next.paragraph !== best.paragraph || chosen.includes(next)) return undefined;
  return next;
}

/**
 * The best 2–3 source sentences for the question (and the best one's continuation), in reading
 * order, each cited, opened in the employee's language. Quoted sentences stay as written, so when
 * they are plainly in another language the opening says so ("The company material on this is in
 * Spanish; here is what it says: …") rather than passing them off as an answer in the question's.
 */
export function extractiveAnswer(sources: Source[], question: string, language: Language = detectLanguage(question)): string {
  const ranked = rankSentences(sources, question);
  let chosen = ranked.filter((candidate) => candidate.score > 0).slice(0, MAX_SENTENCES);
  if (chosen.length < 2) {
    // Too little overlap to pick by relevance: add the best sentence's neighbour (or the opening) for context.
    const inOrder = [...ranked].sort((a, b) => a.order - b.order);
    const anchor = chosen[0] ?? inOrder[0];
    const next = inOrder.find((candidate) => anchor && candidate.order === anchor.order + 1 && candidate.marker === anchor.marker);
    chosen = [anchor, next].filter((candidate): candidate is Candidate => candidate !== undefined);
  }
  const continuation = continuationOf(chosen[0], ranked, chosen);
  if (continuation) chosen.push(continuation);
  chosen.sort((a, b) => a.order - b.order);
  const body = chosen.map((candidate) => cite(candidate.sentence, candidate.marker)).join(" ");
  const quoted = chosen.map((candidate) => candidate.sentence).join(" ");
  const material = isProse(quoted) && !readsAs(quoted, language) ? languageOf(quoted) : undefined;
  const messages = messagesFor(language);
  return `${material ? messages.materialIn(languageNameFor(material, language)) : messages.accordingTo} ${body}`;
}

/**
 * Mostly words, at least four of them: only such text is said to be in a language. Markup, code
 * and tables ("></DD ><DT >bin</DT") score as some language by n-grams, and an answer must
 * never claim a manual's English is Croatian.
 */
function isProse(text: string): boolean {
  const visible = text.replace(/\s+/g, "");
  const letters = visible.match(/\p{L}/gu)?.length ?? 0;
  return (text.match(/\p{L}{2,}/gu)?.length ?? 0) >= 4 && letters >= visible.length * 0.75;
}

function topicOf(question: string): string {
  const cleaned = question
    .replace(/\[\d+\]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[?¿!¡.]+$/g, "")
    .replace(/^[¿¡]/, "");
  return cleaned.length > 80 ? `${cleaned.slice(0, 77)}…` : cleaned;
}

export function greetingReply(text: string, language: Language): string {
  const messages = messagesFor(language);
  return isThanks(text) ? messages.thanks : messages.greeting;
}

/** A brief, uncited reply for questions that come with no company material. */
export function genericAnswer(question: string, generalKnowledge: boolean, language: Language = detectLanguage(question)): string {
  if (isGreeting(question)) return greetingReply(question, language);
  const messages = messagesFor(language);
  const topic = topicOf(question) || messages.yourQuestion;
  return `${generalKnowledge ? `${messages.notCompanyMaterial} ` : ""}${messages.generalAbout(topic)}`;
}
