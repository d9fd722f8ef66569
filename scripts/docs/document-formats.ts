/**
 * The lists of accepted document formats in the docs, generated from lib/document-formats.ts: the
 * text between `<!-- formats -->` and `<!-- /formats -->` is the formats' names, the text between
 * `<!-- extensions -->` and `<!-- /extensions -->` their extensions. `npm run docs:config` rewrites
 * them; test/unit/docs/document-formats.test.ts fails when one is stale.
 */
import { fileURLToPath } from "node:url";
import { ALLOWED_EXTENSIONS, UPLOAD_FORMATS_TEXT } from "../../lib/document-formats";

export const FORMAT_LIST_FILES = ["../../README.md", "../../docs/http-api.md"].map((path) => fileURLToPath(new URL(path, import.meta.url)));

const BLOCKS: Array<[name: string, text: string]> = [
  ["formats", UPLOAD_FORMATS_TEXT],
  ["extensions", ALLOWED_EXTENSIONS.map((extension) => `\`${extension}\``).join(", ")],
];

/** The markdown with every marked list replaced by the current one. */
export function renderFormatLists(markdown: string): string {
  return BLOCKS.reduce(
    (text, [name, list]) => text.replace(new RegExp(`<!-- ${name} -->[^<]*<!-- /${name} -->`, "g"), `<!-- ${name} -->${list}<!-- /${name} -->`),
    markdown,
  );
}
