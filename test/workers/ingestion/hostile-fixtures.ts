/**
 * Files built to hurt a parser: quadratic-regex bait, deep nesting, zip bombs (with an honest
 * directory and with one that lies), CSV expansion. The zips come from a tiny writer over
 * node:zlib (no zip library writes a directory that lies); a 1 GB entry is never held in memory,
 * only its deflated form.
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

interface ZipPart {
  name: string;
  compressed: Buffer;
  crc: number;
  size: number;
  /** The name the local header carries when it differs from the central directory's. */
  localName?: string;
}

function part(name: string, data: Buffer | string): ZipPart {
  const bytes = Buffer.from(data);
  return { name, compressed: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
}

/**
 * `head`, then `unit` repeated up to about `totalBytes`, then `tail`, as one raw deflate stream.
 * Each piece is deflated on its own and ended with a full flush (byte-aligned, no references
 * back), so one deflated megabyte can be repeated a thousand times: a 1 GB entry in a second.
 */
function repeatedPart(name: string, head: string, unit: string, totalBytes: number, tail: string): ZipPart {
  const nonFinal = (bytes: Buffer) => deflateRawSync(bytes, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const block = Buffer.from(unit.repeat(Math.ceil((1 << 20) / unit.length)));
  const deflatedBlock = nonFinal(block);
  const pieces: Buffer[] = [nonFinal(Buffer.from(head))];
  let crc = crc32(head);
  let size = Buffer.byteLength(head);
  while (size + block.length <= totalBytes) {
    pieces.push(deflatedBlock);
    crc = crc32(block, crc);
    size += block.length;
  }
  pieces.push(deflateRawSync(Buffer.from(tail)));
  return { name, compressed: Buffer.concat(pieces), crc: crc32(tail, crc), size: size + Buffer.byteLength(tail) };
}

/** The end-of-central-directory record: how many entries the directory holds, its size and offset. */
function endRecord(count: number, directoryLength: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryLength, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return end;
}

/**
 * A zip with a central directory; `declaredSize` may lie about what each part inflates to, and
 * `declaredCount` about how many entries the directory holds.
 */
function zipOf(parts: ZipPart[], declaredSize: (part: ZipPart) => number = (p) => p.size, declaredCount = parts.length): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const localName = Buffer.from(p.localName ?? p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6); // names in UTF-8
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(p.crc, 14);
    local.writeUInt32LE(p.compressed.length, 18);
    local.writeUInt32LE(declaredSize(p), 22);
    local.writeUInt16LE(localName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(p.crc, 16);
    central.writeUInt32LE(p.compressed.length, 20);
    central.writeUInt32LE(declaredSize(p), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, localName, p.compressed);
    centrals.push(central, name);
    offset += local.length + localName.length + p.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endRecord(declaredCount, directory.length, offset)]);
}

const contentTypes = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main.split("|")[0]}" ContentType="${main.split("|")[1]}"/></Types>`;
const DOCX_MAIN = "word/document.xml|application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const PPTX_MAIN = "ppt/presentation.xml|application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml";

const WORD_HEAD = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`;
const WORD_TAIL = "</w:body></w:document>";
const wordDocument = (text: string) => `${WORD_HEAD}<w:p><w:r><w:t>${text}</w:t></w:r></w:p>${WORD_TAIL}`;
const wordBomb = (name: string, inflatedBytes: number) => repeatedPart(name, WORD_HEAD, "<w:p><w:r><w:t>boom</w:t></w:r></w:p>", inflatedBytes, WORD_TAIL);

/**
 * A DOCX whose word/document.xml inflates to `inflatedBytes` (1 GB by default) of paragraphs,
 * from about 3 MB. `lie` makes the directory (and local header) claim 64 kB instead.
 */
export function docxBomb({ inflatedBytes = 1024 ** 3, lie = false }: { inflatedBytes?: number; lie?: boolean } = {}): Buffer {
  const body = wordBomb("word/document.xml", inflatedBytes);
  const parts = [part("[Content_Types].xml", contentTypes(DOCX_MAIN)), body];
  return zipOf(parts, (p) => (lie && p === body ? 64 * 1024 : p.size));
}

/**
 * A DOCX whose word/document.xml reads `text`, followed by a second entry called `duplicateName`
 * that some reader takes for the same part (JSZip keeps the last of a name). The second entry
 * holds `hidden` text, or with `bomb` the 1 GB body of docxBomb while declaring 1 kB. With
 * `corruptFirst` the first entry is not deflate data at all, so a reader that inflated anything
 * before looking at the names would fail on it as corrupt.
 */
export function docxWithDuplicate({
  duplicateName = "word/document.xml",
  text = "The measured text.",
  hidden = "Text nobody measured.",
  bomb = false,
  corruptFirst = false,
}: {
  duplicateName?: string;
  text?: string;
  hidden?: string;
  bomb?: boolean;
  corruptFirst?: boolean;
} = {}): Buffer {
  const first = corruptFirst
    ? { name: "word/document.xml", compressed: Buffer.from("this is not deflate data".repeat(8)), crc: 0, size: 1024 }
    : part("word/document.xml", wordDocument(text));
  const second = bomb ? wordBomb(duplicateName, 1024 ** 3) : part(duplicateName, wordDocument(hidden));
  return zipOf([part("[Content_Types].xml", contentTypes(DOCX_MAIN)), first, second], (p) => (p === second && bomb ? 1024 : p.size));
}

/**
 * A DOCX that shows JSZip a word/document.xml the central directory does not list: `local-name`
 * gives an entry listed as word/notes.xml the local name word/document.xml (JSZip reads local
 * names); `past-count` puts a second word/document.xml in the directory after the entries the
 * end record counts (JSZip reads on while the signatures match).
 */
export function docxWithHiddenEntry(trick: "local-name" | "past-count", text = "The measured text.", hidden = "Text nobody measured."): Buffer {
  const parts = [part("[Content_Types].xml", contentTypes(DOCX_MAIN)), part("word/document.xml", wordDocument(text))];
  if (trick === "local-name") return zipOf([...parts, { ...part("word/notes.xml", wordDocument(hidden)), localName: "word/document.xml" }]);
  return zipOf([...parts, part("word/document.xml", wordDocument(hidden))], undefined, parts.length);
}

/** A PPTX with one slide saying `text` and a second slide entry named `duplicateName`, saying `hidden`. */
export function pptxWithDuplicate(duplicateName: string, text: string, hidden: string): Buffer {
  const slide = (words: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree>` +
    `<p:sp><p:txBody><a:p><a:r><a:t>${words}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
  return zipOf([part("[Content_Types].xml", contentTypes(PPTX_MAIN)), part("ppt/slides/slide1.xml", slide(text)), part(duplicateName, slide(hidden))]);
}

/**
 * A PPTX whose one slide has a title, a line of body text, and then `shapes` `<p:sp>` elements
 * that are never closed: the old `<p:sp\b[^>]*>[\s\S]*?</p:sp>` pattern rescanned the rest of the
 * slide from each of them.
 */
export function pptxWithShapes(shapes: number, title: string, body: string): Buffer {
  const slide =
    `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree>` +
    `<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>${title}</a:t></a:r></a:p></p:txBody></p:sp>` +
    `<p:sp><p:txBody><a:p><a:r><a:t>${body}</a:t></a:r></a:p></p:txBody></p:sp>` +
    "<p:sp><p:spPr>".repeat(shapes) +
    "</p:spTree></p:cSld></p:sld>";
  return zipOf([part("[Content_Types].xml", contentTypes(PPTX_MAIN)), part("ppt/slides/slide1.xml", slide)]);
}

/** A Markdown heading line `# a<spaces>b` (quadratic for the old ATX pattern), then a body. */
export function markdownSpacedHeading(spaces: number, body: string): Buffer {
  return Buffer.from(`# a${" ".repeat(spaces)}b\n\n${body}\n`);
}

/** `copies` trees of `depth` nested <div>s, each holding one sentence at the bottom. */
export function deeplyNestedHtml(depth: number, copies: number, sentence: string): Buffer {
  const tree = `${"<div>".repeat(depth)}<p>${sentence}</p>${"</div>".repeat(depth)}`;
  return Buffer.from(`<!doctype html><html><body><h1>Nested</h1>${tree.repeat(copies)}</body></html>`);
}

/** A CSV with `columns` column names of `nameLength` characters and `rows` rows of short values. */
export function wideCsv(columns: number, nameLength: number, rows: number): Buffer {
  const header = Array.from({ length: columns }, (_, i) => `${String(i).padStart(4, "0")}${"n".repeat(nameLength - 4)}`).join(",");
  const row = Array.from({ length: columns }, (_, i) => `v${i}`).join(",");
  return Buffer.from(`${header}\n${`${row}\n`.repeat(rows)}`);
}
