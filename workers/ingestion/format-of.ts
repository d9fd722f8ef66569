/** The format a stored document was accepted as (recorded at upload, by content and name). */
import type { DocumentRow } from "../../db/queries/documents";
import { documentMetadata } from "../../db/queries/json-columns";
import type { DocumentFormat } from "../../lib/document-formats";

export function detectFormatFromRow(document: Pick<DocumentRow, "metadata" | "filename">): DocumentFormat {
  const { format } = documentMetadata.parse(document.metadata);
  if (!format) throw new Error(`document ${document.filename} has no recorded format`);
  return format;
}
