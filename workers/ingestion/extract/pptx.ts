/**
 * PPTX: one section per slide, in presentation order, with the title placeholder's text as the
 * heading and the slide number as the page. The slide XML is read by a linear scanner with an
 * explicit stack (patterns like `<p:sp>[\s\S]*?</p:sp>` were quadratic on unclosed shapes), and
 * the zip is read through SafeZip, which stops at the inflation limits.
 */
import { posix } from "node:path";
import { coreTitle } from "./core-properties";
import { scanMarkup } from "./markup-scanner";
import {
  buildDocument,
  DEFAULT_EXTRACTION_LIMITS,
  type ExtractedDocument,
  type ExtractedSection,
  ExtractionError,
  type ExtractionLimits,
  textTooLarge,
} from "./types";
import { openZip, type SafeZip } from "./zip";

const CORRUPT = "The PowerPoint file is corrupt or could not be read";
const TITLE_TYPES = new Set(["title", "ctrTitle"]);

/**
 * A slide's text: paragraphs (`<a:p>`, runs joined, `<a:br/>` as a line break) of title
 * placeholders become the heading, every other paragraph a line of the body. `budget` is the
 * text the document may still produce.
 */
export function slideSection(
  xml: string,
  slideNumber: number,
  budget: { remaining: number; limits: ExtractionLimits } = { remaining: Infinity, limits: DEFAULT_EXTRACTION_LIMITS },
): ExtractedSection {
  const titles: string[] = [];
  const body: string[] = [];
  /** One flag per open `<p:sp>`: whether it is a title placeholder. */
  const shapes: boolean[] = [];
  let paragraph: string[] | null = null;
  let inRun = 0;
  const endParagraph = () => {
    if (paragraph === null) return;
    const line = paragraph.join("");
    if (line.trim() !== "") (shapes.at(-1) ? titles : body).push(line);
    paragraph = null;
  };

  scanMarkup(
    xml,
    {
      open(name, attributes) {
        if (name === "p:sp") shapes.push(false);
        else if (name === "p:ph" && shapes.length > 0 && TITLE_TYPES.has(attributes.type ?? "")) shapes[shapes.length - 1] = true;
        else if (name === "a:p") {
          endParagraph();
          paragraph = [];
        } else if (name === "a:t") inRun++;
        else if (name === "a:br") paragraph?.push("\n");
      },
      close(name) {
        if (name === "p:sp") {
          endParagraph();
          shapes.pop();
        } else if (name === "a:p") endParagraph();
        else if (name === "a:t") inRun = Math.max(0, inRun - 1);
      },
      text(text) {
        if (inRun === 0 || paragraph === null) return;
        budget.remaining -= text.length;
        if (budget.remaining < 0) throw textTooLarge(budget.limits);
        paragraph.push(text);
      },
    },
    { xml: true },
  );
  endParagraph();
  return {
    heading: titles.join(" ").replace(/\s+/g, " ").trim() || null,
    text: body.join("\n"),
    pageStart: slideNumber,
    pageEnd: slideNumber,
  };
}

/** Start tags of one element type with their attributes, read by the same linear scanner. */
function tagsNamed(xml: string, wanted: string): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  scanMarkup(xml, { open: (name, attributes) => name === wanted && found.push(attributes), close: () => undefined, text: () => undefined }, { xml: true });
  return found;
}

/** Slide paths in the order the deck shows them (presentation.xml), falling back to file numbering. */
async function slidePaths(zip: SafeZip): Promise<string[]> {
  if (zip.has("ppt/presentation.xml") && zip.has("ppt/_rels/presentation.xml.rels")) {
    const targets = new Map<string, string>();
    for (const { Id: id, Target: target } of tagsNamed(await zip.readText("ppt/_rels/presentation.xml.rels"), "Relationship")) {
      if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : posix.join("ppt", target));
    }
    const ordered = tagsNamed(await zip.readText("ppt/presentation.xml"), "p:sldId")
      .map((attributes) => targets.get(attributes["r:id"] ?? ""))
      .filter((path): path is string => path !== undefined && zip.has(path));
    if (ordered.length > 0) return ordered;
  }
  const slideNumber = (path: string) => Number(/^ppt\/slides\/slide(\d{1,9})\.xml$/.exec(path)?.[1] ?? 0);
  return [...zip.entries.keys()].filter((path) => slideNumber(path) > 0).sort((a, b) => slideNumber(a) - slideNumber(b));
}

export async function extractPptx(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  const zip = await openZip(bytes, limits, CORRUPT);
  const budget = { remaining: limits.maxTextChars, limits };
  const sections: ExtractedSection[] = [];
  let title: string | null;
  try {
    title = await coreTitle(zip);
    const paths = await slidePaths(zip);
    // One slide in memory at a time: the limits bound the total, this keeps the peak small.
    for (const [index, path] of paths.entries()) sections.push(slideSection(await zip.readText(path), index + 1, budget));
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError(CORRUPT, error);
  }
  // The saved title, else the first slide's title.
  return buildDocument("pptx", sections, sections.length, undefined, limits, title ?? sections.find((section) => section.heading)?.heading ?? null);
}
