/**
 * The one layout of an admin console page: a `main` landmark with the page's name, its content in
 * a centred column of one width with the same margins on both sides (Documents, Content gaps, People,
 * Usage). The assistant is a chat workspace, as wide as the window like the tutor's: `full` keeps
 * the landmark and leaves the width to the workspace.
 */
import type { ComponentChildren } from "preact";

export function ConsolePage({
  label,
  name,
  width = "column",
  children,
}: {
  label: string;
  name: string;
  width?: "column" | "full";
  children: ComponentChildren;
}) {
  return (
    <main class={`console-page console-page-${width} ${name}`} aria-label={label}>
      {children}
    </main>
  );
}
