/** The format a stored document was accepted as (recorded at upload, by content and name). */
import type { DocumentRow } from "../../db/queries/documents";
import type { DocumentFormat } from "../../lib/document-formats";

export function detectFormatFromRow(document: Pick<DocumentRow, "metadata" | "filename">): DocumentFormat {
  const format = document.metadata?.format;
  if (typeof format !== "string") throw new Error(`document ${document.filename} has no recorded format`);
  return format as DocumentFormat;
}
