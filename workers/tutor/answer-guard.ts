/**
 * Cleans the tutor's answer while it streams, so neither the live tokens nor the stored message
 * carry what a prompt injection might have talked the model into:
 *
 * - citation markers are kept only for sources the model was given (`[7]` with three sources is
 *   dropped, `[1, 7]` becomes `[1]`), so no citation can point at material the user never saw;
 * - sentences of the system prompt repeated verbatim are replaced by a short notice;
 * - the step-down marker (step-down.ts), where the turn may step down, is taken out of the text and
 *   recorded: from then on no citation marker is kept, since the answer is general knowledge.
 *
 * Text is held back only while its tail could still become a marker or a prompt sentence, so
 * ordinary answers stream with no visible delay. Paraphrases cannot be caught by matching; the
 * system prompt holds no secrets, this only keeps it from being recited as such.
 */
import { citedIndices } from "./citations";
import { STEP_DOWN_MARKER } from "./step-down";

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
  private validIndices: ReadonlySet<number>;
  private stepped = false;

  constructor(
    validIndices: ReadonlySet<number>,
    systemPrompt: string,
    private readonly options: { stepDown?: boolean } = {},
  ) {
    this.validIndices = validIndices;
    const sentences = systemPrompt.split(/\n+|(?<=[.!?:])\s+/).map((s) => s.trim());
    this.secrets = [...new Set(sentences.filter((s) => s.length >= MIN_SECRET_CHARS))];
  }

  /** True once the model wrote the step-down marker: the answer is general knowledge, citing nothing. */
  get steppedDown(): boolean {
    return this.stepped;
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

  /**
   * Everything released so far: the answer as it should be stored. After a step-down no citation
   * marker is kept, also none released before a marker the model wrote late (against the prompt).
   */
  get text(): string {
    return this.stepped ? this.cleanMarkers(this.emitted) : this.emitted;
  }

  private release(cut: number): string {
    // Never split a marker between what is shown now and what comes later.
    const head = this.pending.slice(0, cut);
    const partial = PARTIAL_MARKER.exec(head);
    const boundary = partial && cut < this.pending.length && head.length - partial.index <= MAX_MARKER_CHARS ? partial.index : cut;
    // Only released text is read for the marker: a recited prompt sentence that contains it is held back until whole, then withheld.
    const out = this.cleanMarkers(this.takeStepDown(this.pending.slice(0, boundary)));
    this.pending = this.pending.slice(boundary);
    this.emitted += out;
    return out;
  }

  /** Removes the step-down marker (and the space after it) and, the first time, stops keeping citations. */
  private takeStepDown(text: string): string {
    if (!this.options.stepDown) return text;
    let rest = text;
    if (rest.includes(STEP_DOWN_MARKER)) {
      if (!this.stepped) {
        this.stepped = true;
        this.validIndices = new Set();
      }
      rest = rest.split(STEP_DOWN_MARKER).join("");
    }
    // The marker opened the answer: the answer starts after it, without the space that followed it.
    return this.stepped && this.emitted === "" ? rest.trimStart() : rest;
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
    const watched = this.options.stepDown && !this.stepped ? [...this.secrets, STEP_DOWN_MARKER] : this.secrets;
    for (const secret of watched) {
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
