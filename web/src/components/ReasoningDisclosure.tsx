/**
 * A reasoning model's thinking, above its answer: collapsed unless the reader opens it, growing
 * while it streams. Only a live turn has it (the thinking is not stored, so a reloaded answer shows
 * none), and only a model that thinks sends it. Plain text: nothing in it is rendered as markup.
 */
export function ReasoningDisclosure({ text, thinking }: { text?: string; thinking: boolean }) {
  if (!text) return null;
  return (
    <details class="reasoning">
      <summary>{thinking ? "Thinking…" : "Reasoning"}</summary>
      <div class="reasoning-text">{text}</div>
    </details>
  );
}
