/**
 * Writes a plain zip from entries whose compressed bytes are already known: one local header per
 * entry, then the central directory, nothing else (no extra fields, no comments, no data
 * descriptors, names in UTF-8). It is how a parser we do not control (mammoth through JSZip) gets
 * exactly the entries SafeZip measured, under the names we checked, and nothing hidden beside them.
 */

export interface WrittenEntry {
  name: string;
  /** 0 (stored) or 8 (deflated), as in the source file. */
  method: number;
  crc32: number;
  /** The entry's bytes as stored in the source file (deflated when method is 8). */
  data: Buffer;
  /** What the entry inflated to when it was measured. */
  uncompressedSize: number;
  /** When it was last changed (a person's export stamps its files); without it the fields stay 0, as the extractor has always written them. */
  modified?: Date;
}

/** MS-DOS time and date words (2-second resolution, local fields read as UTC, years from 1980). */
function dosTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((Math.max(1980, date.getUTCFullYear()) - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

const UTF8_NAMES = 0x800;
const VERSION = 20;

/**
 * The fields local and central headers share, in the same order: version needed, flags, method,
 * time, date, CRC, sizes, name length. They start at 4 in a local header and at 6 in a central one.
 */
function writeShared(header: Buffer, at: number, entry: WrittenEntry, nameLength: number): void {
  header.writeUInt16LE(VERSION, at);
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(entry.method, at + 4);
  if (entry.modified) {
    const stamp = dosTime(entry.modified);
    header.writeUInt16LE(stamp.time, at + 6);
    header.writeUInt16LE(stamp.date, at + 8);
  }
  header.writeUInt32LE(entry.crc32 >>> 0, at + 10);
  header.writeUInt32LE(entry.data.length, at + 14);
  header.writeUInt32LE(entry.uncompressedSize, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
}

export function writeZip(entries: readonly WrittenEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeShared(local, 4, entry, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION, 4);
    writeShared(central, 6, entry, name.length);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endRecord(entries.length, directory.length, offset)]);
}

/** The end-of-central-directory record: how many entries the directory holds, its size and offset. */
export function endRecord(count: number, directoryLength: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryLength, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return end;
}
