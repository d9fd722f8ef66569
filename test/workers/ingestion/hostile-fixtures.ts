/**
 * Files built to hurt a parser: quadratic-regex bait, deep nesting, zip bombs (with an honest
 * directory and with one that lies), CSV expansion. The zips come from a tiny writer over
 * node:zlib; a 1 GB entry is never held in memory, only its deflated form.
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

interface ZipPart {
  name: string;
  compressed: Buffer;
  crc: number;
  size: number;
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

/** A zip with a central directory; `declaredSize` may lie about what each part inflates to. */
function zipOf(parts: ZipPart[], declaredSize: (part: ZipPart) => number = (p) => p.size): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(p.crc, 14);
    local.writeUInt32LE(p.compressed.length, 18);
    local.writeUInt32LE(declaredSize(p), 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(p.crc, 16);
    central.writeUInt32LE(p.compressed.length, 20);
    central.writeUInt32LE(declaredSize(p), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, p.compressed);
    centrals.push(central, name);
    offset += local.length + name.length + p.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const contentTypes = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main.split("|")[0]}" ContentType="${main.split("|")[1]}"/></Types>`;
const DOCX_MAIN = "word/document.xml|application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
const PPTX_MAIN = "ppt/presentation.xml|application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml";

/**
 * A DOCX whose word/document.xml inflates to `inflatedBytes` (1 GB by default) of paragraphs,
 * from about 3 MB. `lie` makes the directory (and local header) claim 64 kB instead.
 */
export function docxBomb({ inflatedBytes = 1024 ** 3, lie = false }: { inflatedBytes?: number; lie?: boolean } = {}): Buffer {
  const body = repeatedPart(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`,
    "<w:p><w:r><w:t>boom</w:t></w:r></w:p>",
    inflatedBytes,
    "</w:body></w:document>",
  );
  const parts = [part("[Content_Types].xml", contentTypes(DOCX_MAIN)), body];
  return zipOf(parts, (p) => (lie && p === body ? 64 * 1024 : p.size));
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
