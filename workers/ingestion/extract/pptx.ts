/**
 * PPTX: one section per slide, in presentation order, with the title placeholder's text as the
 * heading and the slide number as the page. The XML is simple enough to read with patterns.
 */
import JSZip from "jszip";
import { posix } from "node:path";
import { buildDocument, type ExtractedDocument, type ExtractedSection, ExtractionError } from "./types";

const SHAPE = /<p:sp\b[^>]*>[\s\S]*?<\/p:sp>/g;
const TITLE_PLACEHOLDER = /<p:ph\b[^>]*\btype\s*=\s*"(?:title|ctrTitle)"/;
const PARAGRAPH = /<a:p\b[^>]*>([\s\S]*?)<\/a:p>/g;
const RUN_OR_BREAK = /<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>|<a:br\b[^>]*\/?>/g;

export function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (entity, body: string) => {
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (body[0] !== "#") return named[body.toLowerCase()] ?? entity;
    const code = body[1]?.toLowerCase() === "x" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/** A shape's (or slide's) text: one line per `<a:p>`, runs joined, `<a:br/>` as a line break. */
function paragraphs(xml: string): string[] {
  return [...xml.matchAll(PARAGRAPH)]
    .map(([, body]) =>
      [...body!.matchAll(RUN_OR_BREAK)].map(([run, text]) => (run.startsWith("<a:br") ? "\n" : decodeXmlEntities(text ?? ""))).join(""),
    )
    .filter((line) => line.trim() !== "");
}

export function slideSection(xml: string, slideNumber: number): ExtractedSection {
  const titles: string[] = [];
  const body = xml.replace(SHAPE, (shape) => {
    if (!TITLE_PLACEHOLDER.test(shape)) return shape;
    titles.push(...paragraphs(shape));
    return "";
  });
  return {
    heading: titles.join(" ").replace(/\s+/g, " ").trim() || null,
    text: paragraphs(body).join("\n"),
    pageStart: slideNumber,
    pageEnd: slideNumber,
  };
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`).exec(tag)?.[1];
}

/** Slide paths in the order the deck shows them (presentation.xml), falling back to file numbering. */
async function slidePaths(zip: JSZip): Promise<string[]> {
  const presentation = await zip.file("ppt/presentation.xml")?.async("string");
  const rels = await zip.file("ppt/_rels/presentation.xml.rels")?.async("string");
  if (presentation && rels) {
    const targets = new Map<string, string>();
    for (const [tag] of rels.matchAll(/<Relationship\b[^>]*>/g)) {
      const id = attribute(tag, "Id");
      const target = attribute(tag, "Target");
      if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : posix.join("ppt", target));
    }
    const ordered = [...presentation.matchAll(/<p:sldId\b[^>]*>/g)]
      .map(([tag]) => targets.get(attribute(tag, "r:id") ?? ""))
      .filter((path): path is string => path !== undefined && zip.file(path) !== null);
    if (ordered.length > 0) return ordered;
  }
  const slideNumber = (path: string) => Number(/slide(\d+)\.xml$/.exec(path)?.[1] ?? 0);
  return Object.keys(zip.files)
    .filter((path) => /^ppt\/slides\/slide\d+\.xml$/.test(path))
    .sort((a, b) => slideNumber(a) - slideNumber(b));
}

export async function extractPptx(bytes: Buffer): Promise<ExtractedDocument> {
  let slides: string[];
  try {
    const zip = await JSZip.loadAsync(bytes);
    slides = await Promise.all((await slidePaths(zip)).map((path) => zip.file(path)!.async("string")));
  } catch (error) {
    throw new ExtractionError("The PowerPoint file is corrupt or could not be read", error);
  }
  return buildDocument("pptx", slides.map((xml, index) => slideSection(xml, index + 1)), slides.length);
}
