/** The format a stored document was accepted as (recorded at upload, by content and name). */
import type { DocumentRow } from "../../db/queries/documents";
import { DOCUMENT_FORMATS, type DocumentFormat } from "../../lib/document-formats";

const isFormat = (value: unknown): value is DocumentFormat => typeof value === "string" && Object.hasOwn(DOCUMENT_FORMATS, value);

export function detectFormatFromRow(document: Pick<DocumentRow, "metadata" | "filename">): DocumentFormat {
  const format = document.metadata?.format;
  if (!isFormat(format)) throw new Error(`document ${document.filename} has no recorded format we read (${String(format)})`);
  return format;
}
