/**
 * The title an Office file (DOCX, PPTX) was saved with: `dc:title` in `docProps/core.xml`.
 * Read through SafeZip, so its inflation limits hold; a missing or unreadable part is no title,
 * never a failed document.
 */
import { scanMarkup } from "./markup-scanner";
import type { SafeZip } from "./zip";

const CORE_PROPERTIES = "docProps/core.xml";

export async function coreTitle(zip: SafeZip): Promise<string | null> {
  if (!zip.has(CORE_PROPERTIES)) return null;
  let xml: string;
  try {
    xml = await zip.readText(CORE_PROPERTIES);
  } catch {
    return null;
  }
  let inTitle = false;
  let title = "";
  scanMarkup(
    xml,
    {
      open: (name) => void (inTitle = name === "dc:title"),
      close: () => void (inTitle = false),
      text: (piece) => void (inTitle && title.length < 1_000 && (title += piece)),
    },
    { xml: true },
  );
  return title.replace(/\s+/g, " ").trim() || null;
}
