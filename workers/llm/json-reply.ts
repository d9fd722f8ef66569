/**
 * JSON out of a model's text. Cloud models answer JSON when asked; local ones (Ollama, LM
 * Studio, llama.cpp) often wrap it in a ```json fence or a sentence of prose. This finds the JSON
 * value such a reply carries, and nothing more: the caller checks it against a strict zod schema,
 * so a lenient find never becomes a lenient accept.
 *
 * What is tried, in order: the whole reply; each fenced block (```json or bare ```); each
 * balanced {...} or [...] in the prose, outermost first. Deliberately not repaired: trailing
 * commas, single quotes, comments or cut-off JSON. Removing a comma is only safe outside strings,
 * and a reply that needs repairs is one whose meaning we would be guessing.
 */

/** The first JSON object or array (or, for a whole-reply parse, any JSON value) found in `text`; undefined when none parses. */
export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const whole = tryParse(trimmed);
  if (whole !== undefined) return whole;
  for (const block of fencedBlocks(trimmed)) {
    const value = tryParse(block) ?? firstBalanced(block);
    if (value !== undefined) return value;
  }
  return firstBalanced(trimmed);
}

const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;

function fencedBlocks(text: string): string[] {
  return [...text.matchAll(FENCE)].map((match) => (match[1] ?? "").trim()).filter(Boolean);
}

function tryParse(candidate: string): unknown {
  try {
    return JSON.parse(candidate) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Each opening tried scans to its close, so text full of unclosed braces would cost quadratic
 * time; a reply carries its JSON within its first few openings, so the search stops after these.
 */
const MAX_OPENINGS = 64;

/** Scans for an opening brace or bracket and its balancing close (strings and escapes respected); the first span that parses wins. */
function firstBalanced(text: string): unknown {
  let openings = 0;
  for (let start = 0; start < text.length && openings < MAX_OPENINGS; start++) {
    const open = text[start];
    if (open !== "{" && open !== "[") continue;
    openings++;
    const end = balancedEnd(text, start);
    if (end === -1) continue;
    const value = tryParse(text.slice(start, end + 1));
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Index of the bracket closing the one at `start`, or -1 when the text ends first or brackets cross. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") stack.push("}");
    else if (char === "[") stack.push("]");
    else if (char === "}" || char === "]") {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
