/**
 * Finds words in web/src that a reader would see and that do not go through the pages' catalogs
 * (web/src/lib/i18n): JSX text, user-visible attributes (placeholder, title, aria-label, alt,
 * label, caption…) given a literal, and string literals that read as prose (two words or more, or
 * a sentence) anywhere else — the argument of `confirm`, an error's message, a notice. A literal
 * that is a message id is fine; so is one on a line marked `i18n-ignore` (or the line after such
 * a comment). Run it: `node --import tsx scripts/i18n/untranslated.ts` — it prints file:line for
 * each finding and exits 1 when there is any. test/unit/web/untranslated.test.ts runs the same.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync } from "oxc-parser";
import { en } from "../../web/src/lib/i18n/catalog/en";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WEB_SOURCE = join(ROOT, "web/src");
/** The i18n layer itself: the catalogs, and the language names each written in its own language. */
const EXEMPT_DIRECTORY = join(WEB_SOURCE, "lib/i18n");

/** Attributes and props whose value a reader sees or hears. */
const VISIBLE_ATTRIBUTES = new Set([
  "placeholder",
  "title",
  "aria-label",
  "alt",
  "label",
  "caption",
  "legend",
  "aria-description",
  "aria-valuetext",
  "aria-roledescription",
  "message",
  "text",
  "hint",
  "empty",
]);
/** Object properties whose string is shown (a chart series' label, a notice's text). */
const VISIBLE_PROPERTIES = new Set(["label", "title", "placeholder", "text", "message", "hint", "caption"]);
/** Calls whose string arguments are for the machine: requests, storage, events, DOM and string plumbing, the log. */
const MACHINE_CALLS =
  /^(console\.\w+|api\.\w+|fetch|fetchWithToken|request|RegExp|URLSearchParams|\w+\.(on|off|emit|get|set|has|delete|getItem|setItem|removeItem|querySelector\w*|addEventListener|removeEventListener|append|split|join|startsWith|endsWith|includes|replace|match|test|closest|getAttribute|setAttribute|createElement|locator|open))$/;

const MESSAGE_IDS = new Set(Object.keys(en));
/** Words that are the same in every language: units, record types, claim names, example values. */
const TECHNICAL = /^(ms|s|TXT|CSV|URL|groups|department|email|name|example\.com|https?:\/\/\S+|[\w-]+\/[\w./-]+)$/;
const LETTER = /\p{L}/u;
/** Two words of letters, or one capitalised word ending a sentence: prose, not an identifier, a class list or a path. */
const PROSE = /(\p{L}{2,}[’']?\p{L}*[,;:]?\s+\p{L}{2,})|(^\p{Lu}\p{Ll}+[.!?…:]$)/u;
const NOT_PROSE = /^(\/|\.{0,2}\/|https?:|[#.][\w-])|^[a-z0-9_.:-]+( [a-z0-9_.:-]+)*$/;

export interface Finding {
  file: string;
  line: number;
  text: string;
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as Node).type === "string";
}

function stringOf(node: Node): string | undefined {
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "TemplateLiteral") return (node.quasis as Array<{ value: { cooked: string | null } }>).map((quasi) => quasi.value.cooked ?? "").join(" ");
  return undefined;
}

function nameOf(node: unknown): string {
  if (!isNode(node)) return "";
  if (node.type === "Identifier" || node.type === "JSXIdentifier") return String(node.name);
  if (node.type === "Literal") return String(node.value);
  if (node.type === "JSXNamespacedName") return `${nameOf(node.namespace)}:${nameOf(node.name)}`;
  if (node.type === "MemberExpression") return `${nameOf(node.object)}.${nameOf(node.property)}`;
  if (node.type === "NewExpression" || node.type === "CallExpression") return nameOf(node.callee);
  return "";
}

/**
 * How the nearest enclosing construct uses a literal: "visible" (a reader sees it), "machine"
 * (a path, a type, a comparison, a class) or "free" (judged by whether it reads as prose).
 */
function useOf(ancestors: readonly Node[]): "visible" | "machine" | "free" {
  for (let index = ancestors.length - 1; index >= 0; index--) {
    const node = ancestors[index]!;
    switch (node.type) {
      case "ImportDeclaration":
      case "ExportNamedDeclaration":
      case "ExportAllDeclaration":
      case "ImportExpression":
      case "TSLiteralType":
      case "TSTypeAnnotation":
      case "SwitchCase":
      case "MemberExpression":
        return "machine";
      case "BinaryExpression":
        if (/^[!=]==?$/.test(String(node.operator))) return "machine";
        break;
      case "JSXAttribute":
        return VISIBLE_ATTRIBUTES.has(nameOf(node.name)) ? "visible" : "machine";
      case "Property":
        if (VISIBLE_PROPERTIES.has(nameOf(node.key))) return "visible";
        return "free";
      case "CallExpression":
      case "NewExpression":
        return MACHINE_CALLS.test(nameOf(node)) ? "machine" : "free";
      case "JSXExpressionContainer":
      case "BlockStatement":
      case "VariableDeclarator":
      case "ReturnStatement":
        return "free";
    }
  }
  return "free";
}

/** The untranslated words of one file's source. */
export function scanSource(file: string, text: string): Finding[] {
  const { program } = parseSync(file, text, { lang: file.endsWith(".tsx") ? "tsx" : "ts" });
  const lines = text.split("\n");
  const lineOf = (offset: number): number => text.slice(0, offset).split("\n").length;
  const findings: Finding[] = [];
  const report = (node: Node, words: string): void => {
    const line = lineOf(node.start);
    if ([line, line - 1].some((number) => (lines[number - 1] ?? "").includes("i18n-ignore"))) return;
    findings.push({ file, line, text: words.trim().replace(/\s+/g, " ").slice(0, 80) });
  };
  const ancestors: Node[] = [];
  const visit = (node: Node): void => {
    if (node.type === "JSXText") {
      const words = String(node.value).trim();
      if (LETTER.test(words) && !TECHNICAL.test(words)) report(node, words);
    } else {
      const words = stringOf(node);
      if (words !== undefined && LETTER.test(words) && !MESSAGE_IDS.has(words) && !TECHNICAL.test(words.trim())) {
        const use = useOf(ancestors);
        if (use === "visible" || (use === "free" && PROSE.test(words) && !NOT_PROSE.test(words.trim()))) report(node, words);
      }
    }
    ancestors.push(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === "type" || key === "start" || key === "end") continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
    ancestors.pop();
  };
  visit(program as unknown as Node);
  return findings;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path === EXEMPT_DIRECTORY ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every untranslated word under web/src, as `file:line`. */
export function findUntranslated(root = WEB_SOURCE): Finding[] {
  return sourceFiles(root).flatMap((path) => scanSource(relative(ROOT, path), readFileSync(path, "utf8")));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const findings = findUntranslated();
  for (const finding of findings) console.log(`${finding.file}:${finding.line}: ${finding.text}`);
  console.log(findings.length === 0 ? "Every visible string goes through the catalogs." : `${findings.length} untranslated string(s).`);
  process.exitCode = findings.length === 0 ? 0 : 1;
}
