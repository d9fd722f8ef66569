/**
 * What a zip entry's name means to the readers behind us. JSZip (inside mammoth) files every
 * entry under its name with `.`/`..`/empty segments resolved, and the last entry of a name wins;
 * Office treats part names as case-insensitive (OPC). A file whose names collide under any of
 * those rules lets the reader open a different entry from the one we measured, so such a file is
 * refused, not guessed at.
 */

/**
 * The path an entry is known by: forward slashes (APPNOTE 4.4.17.1; some Windows writers store
 * `\`), then `.`, `..` and empty segments resolved exactly as JSZip's `utils.resolve` does.
 */
export function entryPath(raw: string): string {
  const parts = raw.replace(/\\/g, "/").split("/");
  const resolved: string[] = [];
  for (const [index, part] of parts.entries()) {
    if (part === "." || (part === "" && index !== 0 && index !== parts.length - 1)) continue;
    if (part === "..") resolved.pop();
    else resolved.push(part);
  }
  return resolved.join("/");
}

/**
 * Two entries with the same key are the same part to some reader: case (OPC part names are
 * case-insensitive), Unicode compatibility forms (NFKC: `é` composed or not, full-width letters)
 * and a leading `/`.
 */
export function collisionKey(path: string): string {
  return path.replace(/^\/+/, "").normalize("NFKC").toLowerCase().normalize("NFKC");
}
