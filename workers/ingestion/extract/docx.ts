/**
 * DOCX through mammoth's HTML, which maps Word's Heading 1..6 styles to h1..h6; the HTML
 * extractor then cuts sections at h1–h3 exactly as it does for uploaded web pages.
 */
import mammoth from "mammoth";
import { extractHtmlString } from "./html";
import { type ExtractedDocument, ExtractionError } from "./types";

/** Images would arrive as base64 data URIs we never read; dropping them saves the memory. */
const dropImages = mammoth.images.imgElement(async () => ({ src: "" }));

export async function extractDocx(bytes: Buffer): Promise<ExtractedDocument> {
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml({ buffer: bytes }, {
      convertImage: dropImages,
      // A document may link to files on the machine that converts it; never follow those links.
      externalFileAccess: false,
    }));
  } catch (error) {
    throw new ExtractionError("The Word document is corrupt or could not be read", error);
  }
  return extractHtmlString(html, "docx");
}
