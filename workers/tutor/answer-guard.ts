/**
 * Cleans the tutor's answer while it streams, so neither the live tokens nor the stored message
 * carry what a prompt injection might have talked the model into:
 *
 * - citation markers are kept only for sources the model was given (`[7]` with three sources is
 *   dropped, `[1, 7]` becomes `[1]`), so no citation can point at material the user never saw;
 * - sentences of the system prompt repeated verbatim are replaced by a short notice.
 *
 * Text is held back only while its tail could still become a marker or a prompt sentence, so
 * ordinary answers stream with no visible delay. Paraphrases cannot be caught by matching; the
 * system prompt holds no secrets, this only keeps it from being recited as such.
 */
import { citedIndices } from "./citations";

export const WITHHELD_NOTICE = "(instructions withheld)";

/** Sentences shorter than this are too generic to treat as a recital of the prompt. */
const MIN_SECRET_CHARS = 24;
/** A run like `[1, 2, 3-5]` is never longer than this; anything longer is plain text. */
const MAX_MARKER_CHARS = 40;

/** A marker still being written, with the space before it (dropped together with an invalid marker). */
const PARTIAL_MARKER = /\s*\[[\d\s,–-]*$|\s+$/;
const NOTICE_RUN = /\(instructions withheld\)(?:\s*\(instructions withheld\))+/g;
const TRAILING_NOTICE = /\(instructions withheld\)\s*$/;

export class AnswerGuard {
  private pending = "";
  private emitted = "";
  private readonly secrets: string[];

  constructor(
    private readonly validIndices: ReadonlySet<number>,
    systemPrompt: string,
  ) {
    const sentences = systemPrompt.split(/\n+|(?<=[.!?:])\s+/).map((s) => s.trim());
    this.secrets = [...new Set(sentences.filter((s) => s.length >= MIN_SECRET_CHARS))];
  }

  /** Feeds a streamed delta; returns the text that is safe to show now (maybe empty). */
  push(delta: string): string {
    this.pending = this.redactSecrets(this.pending + delta);
    const cut = this.pending.length - this.holdBack(this.pending);
    return this.release(cut);
  }

  /** Ends the stream: returns whatever was still held back, cleaned. */
  end(): string {
    this.pending = this.redactSecrets(this.pending);
    return this.release(this.pending.length);
  }

  /** Everything released so far: the answer as it should be stored. */
  get text(): string {
    return this.emitted;
  }

  private release(cut: number): string {
    // Never split a marker between what is shown now and what comes later.
    const head = this.pending.slice(0, cut);
    const partial = PARTIAL_MARKER.exec(head);
    const boundary = partial && cut < this.pending.length && head.length - partial.index <= MAX_MARKER_CHARS ? partial.index : cut;
    const out = this.cleanMarkers(this.pending.slice(0, boundary));
    this.pending = this.pending.slice(boundary);
    this.emitted += out;
    return out;
  }

  private redactSecrets(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(WITHHELD_NOTICE);
    }
    return result.replace(NOTICE_RUN, WITHHELD_NOTICE);
  }

  private cleanMarkers(text: string): string {
    return text.replace(/\s?\[(\d+(?:\s*[-–,]\s*\d+)*)\]/g, (whole) => {
      const marker = whole.trimStart();
      const cited = citedIndices(marker);
      const kept = cited.filter((index) => this.validIndices.has(index));
      if (kept.length === cited.length) return whole;
      if (kept.length === 0) return "";
      return `${whole.startsWith(" ") ? " " : ""}[${kept.join(", ")}]`;
    });
  }

  /** How many trailing characters might still grow into a marker or a prompt sentence. */
  private holdBack(text: string): number {
    let hold = 0;
    const partial = PARTIAL_MARKER.exec(text);
    if (partial && text.length - partial.index <= MAX_MARKER_CHARS) hold = text.length - partial.index;
    for (const secret of this.secrets) {
      const from = Math.max(0, text.length - secret.length + 1);
      for (let start = text.indexOf(secret[0]!, from); start >= 0; start = text.indexOf(secret[0]!, start + 1)) {
        if (secret.startsWith(text.slice(start))) {
          hold = Math.max(hold, text.length - start);
          break;
        }
      }
    }
    // A notice waits for what follows, so a recital of several sentences collapses into one.
    const notice = TRAILING_NOTICE.exec(text.slice(0, text.length - hold));
    if (notice) hold = text.length - notice.index;
    return hold;
  }
}
