/** Reads a zip as the export writes it (local headers, sizes known, no data descriptors): its entries' text, by name, in order. */
import { inflateRawSync } from "node:zlib";

export function unzip(zip: Buffer): Map<string, string> {
  const entries = new Map<string, string>();
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50; ) {
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const extraLength = zip.readUInt16LE(at + 28);
    const name = zip.toString("utf8", at + 30, at + 30 + nameLength);
    const start = at + 30 + nameLength + extraLength;
    const data = zip.subarray(start, start + size);
    entries.set(name, (method === 8 ? inflateRawSync(data) : data).toString("utf8"));
    at = start + size;
  }
  return entries;
}
