/**
 * A reasoning model's thinking, above its answer: collapsed unless the reader opens it, growing
 * while it streams. Only a live turn has it (the thinking is not stored, so a reloaded answer shows
 * none), and only a model that thinks sends it. Plain text: nothing in it is rendered as markup.
 */
import { useT } from "../lib/i18n";

export function ReasoningDisclosure({ text, thinking }: { text?: string; thinking: boolean }) {
  const { t } = useT();
  if (!text) return null;
  return (
    <details class="reasoning">
      <summary>{t(thinking ? "transcript.thinking" : "transcript.reasoning")}</summary>
      <div class="reasoning-text">{text}</div>
    </details>
  );
}
