/**
 * OCR throughput (issue 34, point 9): pages per second of a scanned PDF and images per second,
 * read the way the worker reads them, in the extraction thread at the product's defaults (one
 * thread, tesseract under prlimit with one OpenMP thread). The scanned PDF is the committed
 * fixture's page (ImageMagick + Ghostscript, A4 at 200 dpi) repeated on PAGES pages; each round
 * reads the whole document. Run: `node --import tsx scripts/bench/ocr.ts [--pages 10] [--rounds 3]`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import pino from "pino";
import PDFDocument from "pdfkit";
import { parseConfig } from "../../lib/config";
import type { DocumentFormat } from "../../lib/document-formats";
import { RENDER_LONGER_SIDE_PX } from "../../workers/ingestion/extract/ocr";
import { closeThreadPool, extractInThread } from "../../workers/ingestion/isolation";

const { values } = parseArgs({ options: { pages: { type: "string", default: "10" }, rounds: { type: "string", default: "3" } } });
const PAGES = Number(values.pages);
const ROUNDS = Number(values.rounds);
const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/documents/${name}`, import.meta.url));

/** The fixture's scanned page as a JPEG (what a scanner stores), placed alone on each of `pages` A4 pages. */
async function scannedPdf(pages: number): Promise<Buffer> {
  const page = spawnSync("pdftoppm", ["-r", "200", "-jpeg", "-singlefile", "-"], { input: fixture("scanned-safety-notice.pdf"), maxBuffer: 64 << 20 }).stdout;
  const doc = new PDFDocument({ autoFirstPage: false });
  const parts: Buffer[] = [];
  doc.on("data", (part: Buffer) => parts.push(part));
  const finished = new Promise<void>((resolve) => doc.on("end", () => resolve()));
  for (let i = 0; i < pages; i++) doc.addPage({ size: "A4", margin: 0 }).image(page, 0, 0, { width: 595, height: 842 });
  doc.end();
  await finished;
  return Buffer.concat(parts);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * CPU seconds of this process and of its finished children (tesseract, pdftoppm: Node reaps
 * them, so the kernel adds them to cutime/cstime). On a shared machine the wall clock says how
 * busy the neighbours were; CPU per page is what a page costs.
 */
function cpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based) → indexes 11..14 here.
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return ticks / 100;
}

async function measure(label: string, bytes: Buffer, format: DocumentFormat, units: number): Promise<string> {
  const config = parseConfig(process.env, { overrides: { OCR_MAX_PAGES: Math.max(units, 50) } });
  const log = pino({ level: "silent" });
  // One untimed read warms the thread (pdf.js loaded, tesseract's data in the page cache).
  await extractInThread(bytes, format, config, log);
  const seconds: number[] = [];
  const cpu: number[] = [];
  let characters = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const cpuBefore = cpuSeconds();
    const document = await extractInThread(bytes, format, config, log);
    seconds.push((performance.now() - started) / 1000);
    cpu.push(cpuSeconds() - cpuBefore);
    characters = document.fullText.length;
  }
  const s = median(seconds);
  const c = median(cpu);
  return `| ${label} | ${units} | ${s.toFixed(2)} s | ${(units / s).toFixed(2)} | ${((c / units) * 1000).toFixed(0)} ms | ${(units / c).toFixed(2)} | ${characters} |`;
}

const tesseract = spawnSync("tesseract", ["--version"]).stdout?.toString().split("\n")[0] ?? "tesseract missing";
const rows = [
  await measure(`scanned PDF, A4 200 dpi JPEG pages (rendered to ${RENDER_LONGER_SIDE_PX} px, then OCR)`, await scannedPdf(PAGES), "pdf", PAGES),
  await measure("photo of a notice, JPEG 1200×960", fixture("aviso-cocina.jpg"), "jpeg", 1),
  await measure("PNG notice, 1000×420 grey", fixture("lost-property.png"), "png", 1),
];
await closeThreadPool();
process.stdout.write(
  [
    `${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model ?? "cpu"} · ${tesseract} · languages eng+spa · median of ${ROUNDS} rounds`,
    "",
    "| input | pages | wall time per document | pages/s (wall) | CPU per page | pages/s per core (CPU) | characters read |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n"),
);
