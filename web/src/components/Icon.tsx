/**
 * Icons drawn as inline SVG, so they look the same on every machine: an emoji or a symbol from a
 * font renders as an empty box where no font has the glyph (a server's headless browser, a locked
 * down desktop). Paths from Lucide (ISC licence, lucide.dev), 24×24, stroked in the text colour.
 */
const PATHS = {
  "thumbs-up": [
    "M7 10v12",
    "M15 5.88 14 10h5.83a2 2 0 0 1 1.92 2.56l-2.33 8A2 2 0 0 1 17.5 22H4a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2h2.76a2 2 0 0 0 1.79-1.11L12 2a3.13 3.13 0 0 1 3 3.88Z",
  ],
  "thumbs-down": [
    "M17 14V2",
    "M9 18.12 10 14H4.17a2 2 0 0 1-1.92-2.56l2.33-8A2 2 0 0 1 6.5 2H20a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-2.76a2 2 0 0 0-1.79 1.11L12 22a3.13 3.13 0 0 1-3-3.88Z",
  ],
  check: ["M20 6 9 17l-5-5"],
  cross: ["M18 6 6 18", "m6 6 12 12"],
  circle: ["M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0Z"],
  paperclip: ["m21.44 11.05-9.19 9.19a6 6 0 0 1-8.49-8.49l8.57-8.57A4 4 0 1 1 18 8.84l-8.59 8.57a2 2 0 0 1-2.83-2.83l8.49-8.48"],
} as const;

export type IconName = keyof typeof PATHS;

/** A decorative icon (hidden from assistive technology: the control it sits in carries the words). */
export function Icon({ name }: { name: IconName }) {
  return (
    <svg
      class={`icon icon-${name}`}
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {PATHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
