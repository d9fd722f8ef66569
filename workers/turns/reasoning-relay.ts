/**
 * A reasoning model's thinking on its way to the person: each piece the model client hands over
 * (`ChatOptions.onReasoning`) becomes a `reasoning` event of the turn, apart from the answer's
 * tokens. Nothing here keeps it: the stored answer, its summary, citations and the next turn's
 * history are built from the answer alone (docs/architecture.md, "Reasoning models").
 */
import type { TurnEmitter } from "./turn-emitter";

/** Cleans streamed text as it passes (the tutor's answer guard: no recited prompt, no citation of a source not given). */
export interface StreamCleaner {
  push(text: string): string;
  end(): string;
}

export interface ReasoningRelay {
  /** For `ChatOptions.onReasoning`. */
  onReasoning: (text: string) => Promise<void>;
  /**
   * Sends what the cleaner still held back: before the answer's first token (so the thinking is
   * whole before the answer starts) and once the stream ended. Whitespace alone is not sent.
   */
  flush: () => Promise<void>;
  /** A next model call of the turn begins (an admin turn's next round): its thinking is set apart from the last one's. */
  nextCall: () => void;
}

export function reasoningRelay(events: TurnEmitter, cleaner?: StreamCleaner): ReasoningRelay {
  let held = false;
  let sent = false;
  let apart = false;
  const send = async (content: string): Promise<void> => {
    if (!content) return;
    const separated = apart && sent ? `\n\n${content.trimStart()}` : content;
    apart = false;
    sent = true;
    await events.emit("reasoning", { content: separated });
  };
  return {
    onReasoning: (text) => {
      if (!cleaner) return send(text);
      held = true;
      return send(cleaner.push(text));
    },
    flush: () => {
      if (!held || !cleaner) return Promise.resolve();
      held = false;
      const rest = cleaner.end();
      return rest.trim() ? send(rest) : Promise.resolve();
    },
    nextCall: () => {
      apart = true;
    },
  };
}
