/**
 * A whole document cut into passages the size of a chunk, so the document rung judges it as the
 * chunk rung judges a chunk: a document answers a question only when one passage of it covers
 * the question's terms together, not when one section holds a word and another section the
 * next. Sections start at a Markdown heading (the extracted text of every format keeps them as
 * `#` lines) and are cut further at paragraph breaks past PASSAGE_CHARS; a line that only
 * repeats the document's title is left out (a title alone never answers).
 */
import { normalise } from "../language";

/** About one chunk of text (CHUNK_TOKENS 400 at roughly four characters a token). */
export const PASSAGE_CHARS = 1_600;

export function passagesOf(text: string, title: string): string[] {
  const titleLine = normalise(title);
  const passages: string[] = [];
  let current = "";
  for (const block of text.split(/\n\s*\n/)) {
    const trimmed = block.trim();
    if (!trimmed || normalise(trimmed) === titleLine) continue;
    const heading = /^#{1,6}\s/.test(trimmed);
    if (current && (heading || current.length + trimmed.length > PASSAGE_CHARS)) {
      passages.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${trimmed}` : trimmed;
  }
  if (current) passages.push(current);
  return passages;
}
