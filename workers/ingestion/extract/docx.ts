/**
 * DOCX through mammoth's HTML, which maps Word's Heading 1..6 styles to h1..h6; the HTML
 * extractor then cuts sections at headings exactly as it does for uploaded web pages. The zip is
 * measured first (names, declared and actual inflated sizes), and mammoth reads the archive
 * re-written from the measured entries only, so it never inflates anything that was not measured.
 */
import mammoth from "mammoth";
import { coreTitle } from "./core-properties";
import { extractHtmlString } from "./html";
import { DEFAULT_EXTRACTION_LIMITS, type ExtractedDocument, ExtractionError, type ExtractionLimits } from "./types";
import { openZip } from "./zip";

/** Images would arrive as base64 data URIs we never read; dropping them saves the memory. */
const dropImages = mammoth.images.imgElement(async () => ({ src: "" }));

const CORRUPT = "The Word document is corrupt or could not be read";

export async function extractDocx(bytes: Buffer, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Promise<ExtractedDocument> {
  const zip = await openZip(bytes, limits, CORRUPT);
  const measured = await zip.measuredArchive();
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml(
      { buffer: measured },
      {
        convertImage: dropImages,
        // A document may link to files on the machine that converts it; never follow those links.
        externalFileAccess: false,
      },
    ));
  } catch (error) {
    throw new ExtractionError(CORRUPT, error);
  }
  // The title Word saved wins; else the first Heading 1, as for a web page.
  return extractHtmlString(html, "docx", limits, await coreTitle(zip));
}
