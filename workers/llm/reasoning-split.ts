/**
 * Reasoning models (DeepSeek-R1, Qwen3, QwQ and the like) think before they answer, and servers
 * hand the thinking over in one of three ways: a `reasoning_content` field beside `content` in each
 * delta (vLLM's reasoning parsers, DeepSeek's API), a `reasoning` field (Ollama, OpenRouter, newer
 * vLLM), or — with no parser — a `<think>…</think>` block inside `content` itself, usually at its
 * start. This module separates the two, so the answer that is shown, stored, cited, judged,
 * summarised and sent back as history is the answer alone, and the thinking goes its own way.
 *
 * A stream may cut a tag anywhere (`<th` in one chunk, `ink>` in the next): the few characters that
 * could still become a tag are held until the next piece decides. Blocks may nest (the depth is
 * counted); one left open runs to the end of the reply, which is then all thinking. Tags inside
 * the thinking are dropped, as is a closing tag with no opening one.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** The fields of a streamed delta (or a whole message) that carry text. */
export interface TextDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/** Text a piece brought: for the answer, and for the thinking. Either may be empty. */
export interface Split {
  answer: string;
  reasoning: string;
}

/** Whether `tail` (starting with `<`) could still grow into one of the tags. */
function mayBecomeTag(tail: string): boolean {
  return (tail.length < OPEN.length && OPEN.startsWith(tail)) || (tail.length < CLOSE.length && CLOSE.startsWith(tail));
}

/** Splits a stream of deltas into answer and thinking; feed every delta, then call `end()`. */
export class ReasoningSplitter {
  /** How many `<think>` blocks are open. */
  private depth = 0;
  /** A tail of `content` that may be the start of a tag. */
  private held = "";
  /** Some thinking came: whitespace before the answer's first character is dropped (models put a blank line there). */
  private thought = false;
  /** The answer has had a character other than whitespace. */
  private answered = false;
  /** The thinking has had a character other than whitespace (its leading blank lines are dropped). */
  private reasoned = false;

  push(delta: TextDelta): Split {
    const out: Split = { answer: "", reasoning: "" };
    // The fields first: a server that parses the thinking sends it before the content of the same chunk.
    for (const field of [delta.reasoning_content, delta.reasoning]) if (field) this.toReasoning(out, field);
    if (delta.content) this.scan(this.held + delta.content, out);
    return out;
  }

  /** The stream ended: what was held goes where it was heading. */
  end(): Split {
    const out: Split = { answer: "", reasoning: "" };
    const rest = this.held;
    this.held = "";
    if (rest) this.emit(out, rest);
    return out;
  }

  private scan(text: string, out: Split): void {
    this.held = "";
    let from = 0;
    for (;;) {
      const at = text.indexOf("<", from);
      if (at === -1) {
        this.emit(out, text.slice(from));
        return;
      }
      this.emit(out, text.slice(from, at));
      if (text.startsWith(OPEN, at)) {
        this.depth += 1;
        this.thought = true;
        from = at + OPEN.length;
      } else if (text.startsWith(CLOSE, at)) {
        if (this.depth > 0) this.depth -= 1;
        from = at + CLOSE.length;
      } else if (mayBecomeTag(text.slice(at))) {
        this.held = text.slice(at);
        return;
      } else {
        this.emit(out, "<");
        from = at + 1;
      }
    }
  }

  private emit(out: Split, text: string): void {
    if (!text) return;
    if (this.depth > 0) this.toReasoning(out, text);
    else this.toAnswer(out, text);
  }

  private toReasoning(out: Split, text: string): void {
    this.thought = true;
    const kept = this.reasoned ? text : text.trimStart();
    if (!kept) return;
    this.reasoned = true;
    out.reasoning += kept;
  }

  private toAnswer(out: Split, text: string): void {
    const kept = this.answered || !this.thought ? text : text.trimStart();
    if (!kept) return;
    if (kept.trim()) this.answered = true;
    out.answer += kept;
  }
}

/**
 * A whole reply (a call answered in one piece) split into answer and thinking. Besides what the
 * stream splitter reads, a closing `</think>` with no opening one ends thinking that began with the
 * reply: chat templates that open the block in the prompt (DeepSeek-R1's distilled models) leave
 * the model's output without it. A stream cannot take back what it showed, so only here.
 */
export function splitReasoning(message: TextDelta): Split {
  let content = message.content ?? "";
  let orphaned = "";
  const close = content.indexOf(CLOSE);
  if (close !== -1 && !content.slice(0, close).includes(OPEN)) {
    orphaned = content.slice(0, close);
    content = content.slice(close + CLOSE.length);
  }
  const splitter = new ReasoningSplitter();
  const first = splitter.push({ ...message, content: orphaned ? `${OPEN}${orphaned}${CLOSE}${content}` : content });
  const last = splitter.end();
  return { answer: first.answer + last.answer, reasoning: first.reasoning + last.reasoning };
}
