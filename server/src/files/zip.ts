// A bounded ZIP reader for DOCX archives (threats.md 21). It reads the central directory
// itself and checks everything that can be checked before inflating a byte: the entry count,
// the declared sizes against the caps, entry names (no zip-slip: absolute, `..`, backslash or
// drive paths), duplicate names, encryption, compression methods, ZIP64, and that every entry's
// local header matches its central record and no two entries overlap (the "overlapping entries"
// bomb reuses one compressed stream many times). Inflating then stops at the declared size
// (zlib's maxOutputLength), so an entry that lies about its size fails instead of expanding,
// and each entry's CRC-32 must match. Everything downstream (mammoth, JSZip) only ever sees
// entries that passed here. Synchronous: it runs on a file-parsing worker thread.
import { crc32, inflateRawSync } from 'node:zlib';

export type ZipProblem = 'damaged' | 'limit' | 'unsafe' | 'unsupported';

export class ZipError extends Error {
  readonly problem: ZipProblem;
  constructor(problem: ZipProblem, message: string) {
    super(message);
    this.name = 'ZipError';
    this.problem = problem;
  }
}

export interface ZipLimits {
  /** Most entries the central directory may list. */
  readonly maxEntries: number;
  /** Cap on the declared total and on the bytes actually inflated. */
  readonly maxUncompressedBytes: number;
}

export interface ZipEntry {
  readonly name: string;
  readonly method: 0 | 8;
  readonly crc: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** Offset of the compressed data in the archive. */
  readonly dataStart: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

function damaged(message = 'the archive is damaged or truncated'): ZipError {
  return new ZipError('damaged', message);
}

/** Is an entry name safe to treat as a relative path inside the archive? */
export function isSafeEntryName(name: string): boolean {
  if (name.length === 0 || name.length > 1024) return false;
  if (name.includes('\\') || name.includes('\0')) return false;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return false;
  return !name.split('/').some((segment) => segment === '..' || segment === '.');
}

function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - EOCD_SIZE;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let at = last; at >= first; at -= 1) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) return at;
  }
  throw damaged();
}

/** Read and check the directory; nothing is inflated. */
export function readZipDirectory(bytes: Uint8Array, limits: ZipLimits): ZipEntry[] {
  if (bytes.length < EOCD_SIZE) throw damaged();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  const diskNumber = view.getUint16(eocd + 4, true);
  const directoryDisk = view.getUint16(eocd + 6, true);
  const entriesHere = view.getUint16(eocd + 8, true);
  const entriesTotal = view.getUint16(eocd + 10, true);
  const directorySize = view.getUint32(eocd + 12, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  if (entriesTotal === 0xffff || directoryOffset === 0xffffffff || directorySize === 0xffffffff) {
    throw new ZipError('unsupported', 'ZIP64 archives are not supported');
  }
  if (diskNumber !== 0 || directoryDisk !== 0 || entriesHere !== entriesTotal) throw new ZipError('unsupported', 'multi-part archives are not supported');
  if (entriesTotal > limits.maxEntries) throw new ZipError('limit', 'the archive has too many entries');
  if (directoryOffset + directorySize > eocd) throw damaged();

  const entries: ZipEntry[] = [];
  const ranges: { start: number; end: number }[] = [];
  const names = new Set<string>();
  let declaredTotal = 0;
  let cursor = directoryOffset;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let index = 0; index < entriesTotal; index += 1) {
    if (cursor + 46 > eocd || view.getUint32(cursor, true) !== CENTRAL_SIGNATURE) throw damaged();
    const flags = view.getUint16(cursor + 8, true);
    const method = view.getUint16(cursor + 10, true);
    const crc = view.getUint32(cursor + 16, true);
    const compressedSize = view.getUint32(cursor + 20, true);
    const uncompressedSize = view.getUint32(cursor + 24, true);
    const nameLength = view.getUint16(cursor + 28, true);
    const extraLength = view.getUint16(cursor + 30, true);
    const commentLength = view.getUint16(cursor + 32, true);
    const localOffset = view.getUint32(cursor + 42, true);
    const nameEnd = cursor + 46 + nameLength;
    if (nameEnd > eocd) throw damaged();
    let name: string;
    try {
      // Non-UTF-8 (CP437) names are refused rather than guessed: OOXML names are ASCII.
      name = decoder.decode(bytes.subarray(cursor + 46, nameEnd));
    } catch {
      throw new ZipError('unsafe', 'the archive has an entry name that is not UTF-8');
    }
    cursor = nameEnd + extraLength + commentLength;
    if (cursor > eocd) throw damaged();

    if (!isSafeEntryName(name)) throw new ZipError('unsafe', 'the archive has an unsafe entry name');
    if (names.has(name)) throw new ZipError('unsafe', 'the archive lists an entry twice');
    names.add(name);
    if ((flags & 0x1) !== 0) throw new ZipError('unsupported', 'encrypted archives are not supported');
    if (method !== 0 && method !== 8) throw new ZipError('unsupported', 'the archive uses an unsupported compression method');
    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipError('unsupported', 'ZIP64 archives are not supported');
    }
    if (method === 0 && compressedSize !== uncompressedSize) throw damaged();
    declaredTotal += uncompressedSize;
    if (declaredTotal > limits.maxUncompressedBytes) throw new ZipError('limit', 'the archive expands beyond the size limit');

    // The local header must agree with the central record.
    if (localOffset + 30 > directoryOffset || view.getUint32(localOffset, true) !== LOCAL_SIGNATURE) throw damaged();
    const localNameLength = view.getUint16(localOffset + 26, true);
    const localExtraLength = view.getUint16(localOffset + 28, true);
    const localMethod = view.getUint16(localOffset + 8, true);
    if (localMethod !== method) throw damaged();
    const localNameEnd = localOffset + 30 + localNameLength;
    if (localNameEnd > directoryOffset || Buffer.compare(bytes.subarray(localOffset + 30, localNameEnd), bytes.subarray(nameEnd - nameLength, nameEnd)) !== 0) {
      throw damaged();
    }
    const dataStart = localNameEnd + localExtraLength;
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > directoryOffset) throw damaged();
    ranges.push({ start: localOffset, end: dataEnd });
    if (!name.endsWith('/')) entries.push({ name, method, crc, compressedSize, uncompressedSize, dataStart });
  }
  ranges.sort((a, b) => a.start - b.start);
  for (let index = 1; index < ranges.length; index += 1) {
    if (ranges[index]!.start < ranges[index - 1]!.end) throw new ZipError('unsafe', 'the archive has overlapping entries');
  }
  return entries;
}

/** Tracks the bytes inflated so far against the archive's cap. */
export class InflateBudget {
  private used = 0;
  constructor(private readonly cap: number) {}
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.cap) throw new ZipError('limit', 'the archive expands beyond the size limit');
  }
}

/** Inflate one entry; it may not produce a byte more than it declared, and its CRC must match. */
export function inflateEntry(bytes: Uint8Array, entry: ZipEntry, budget: InflateBudget): Buffer {
  budget.take(entry.uncompressedSize);
  const compressed = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) {
    data = Buffer.from(compressed);
  } else {
    try {
      // maxOutputLength stops inflating at the declared size (+1 to notice an overrun).
      data = inflateRawSync(compressed, { maxOutputLength: entry.uncompressedSize + 1 });
    } catch (error) {
      if (error instanceof RangeError) throw new ZipError('limit', 'an archive entry expands beyond its declared size');
      throw damaged();
    }
  }
  if (data.length !== entry.uncompressedSize) throw damaged();
  if (crc32(data) !== entry.crc) throw damaged('the archive is damaged (checksum mismatch)');
  return data;
}
