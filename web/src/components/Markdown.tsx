/** Renders untrusted Markdown as sanitised DOM nodes (see lib/markdown.ts), with `[n]` linked to citations. */
import { useLayoutEffect, useRef } from "preact/hooks";
import { renderMarkdown, type CitationLinking } from "../lib/markdown";

export function Markdown({ text, linking, class: className }: { text: string; linking?: CitationLinking; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const indices = linking ? [...linking.indices].join(",") : "";
  useLayoutEffect(() => {
    ref.current?.replaceChildren(renderMarkdown(text, linking));
    // `linking` is rebuilt each render; its content is `indices` and the anchor prefix.
  }, [text, indices]);
  return <div class={className ?? "markdown"} ref={ref} />;
}
