// Reading an uploaded zip safely (import): the zip is a file on disk, read by yauzl with random
// access, so nothing of it is held in memory beyond the central directory's entries and the entry
// being read. Every way a hostile zip could hurt is refused before anything is stored:
//  - too many entries (checked from the end record, before one entry is read);
//  - names that are not UTF-8, absolute, with `..`, backslashes or control characters, or twice;
//  - symbolic links (a Unix mode in the external attributes);
//  - declared sizes over the caller's limits (a zip bomb declares its size, or lies about it: yauzl
//    checks every entry's bytes against its declared size as they are inflated);
//  - a truncated or malformed zip (yauzl's own checks), an encrypted entry or an unknown method.
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AppError, errors } from '../domain/errors.js';
import type { ImportBudget } from './budget.js';

export const ZIP_MAX_ENTRIES = 50_000;

export interface ZipEntry {
  /** The entry's name, checked: relative, `/`-separated, no `.` or `..` segment. */
  name: string;
  size: number;
  entry: Entry;
}

export interface OpenedZip {
  zip: ZipFile;
  /** Every file entry (folders left out), in the zip's order. */
  entries: ZipEntry[];
  close(): void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function printable(bytes: Buffer): string {
  return [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The problem with an entry's name, or undefined when it is a safe relative path. */
export function entryNameProblem(name: string): string | undefined {
  if (name === '') return 'the entry has an empty name';
  if (CONTROL.test(name)) return 'the name contains control characters';
  if (name.includes('\\')) return 'the name contains a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'the name is an absolute path';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.some((segment) => segment === '..')) return 'the name leads out of the archive (`..`)';
  if (segments.some((segment) => segment === '.' || segment === '')) return 'the name has an empty or `.` segment';
  return undefined;
}

function isSymlink(entry: Entry): boolean {
  // Made on Unix (the upper byte of "version made by" is 3): the upper 16 bits hold the file's mode.
  const unix = entry.versionMadeBy >> 8 === 3;
  return unix && ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

function openFile(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (error, zip) => {
      if (error) reject(error);
      else resolve(zip);
    });
  });
}

/**
 * Opens the zip at `file` and reads its directory, refusing it (400 invalid_import) when it is not
 * a zip, is truncated, has too many entries, or has an entry that is unsafe or larger than
 * `limitFor(name)` bytes. Entries' bytes are not read here.
 */
export async function openZip(file: string, label: string, limitFor: (name: string) => number): Promise<OpenedZip> {
  let zip: ZipFile;
  try {
    zip = await openFile(file);
  } catch (error) {
    throw errors.invalidImport(label, `not a zip archive, or a truncated one (${(error as Error).message})`);
  }
  const close = () => zip.close();
  try {
    if (zip.entryCount > ZIP_MAX_ENTRIES) {
      throw errors.invalidImport(label, `the archive has ${zip.entryCount} entries; at most ${ZIP_MAX_ENTRIES} are imported`);
    }
    const entries: ZipEntry[] = [];
    const seen = new Set<string>();
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (error: Error) => reject(errors.invalidImport(label, `the archive is damaged (${error.message})`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        let name: string;
        try {
          name = utf8.decode(raw);
        } catch {
          reject(errors.invalidImport(printable(raw), 'the entry name is not UTF-8'));
          return;
        }
        const problem = entryNameProblem(name) ?? (isSymlink(entry) ? 'the entry is a symbolic link' : undefined);
        if (problem !== undefined) {
          reject(errors.invalidImport(name, problem));
          return;
        }
        if (!name.endsWith('/')) {
          const key = name.normalize('NFC');
          if (seen.has(key)) {
            reject(errors.invalidImport(name, 'the archive holds two entries of this name'));
            return;
          }
          seen.add(key);
          const limit = limitFor(name);
          if (entry.uncompressedSize > limit) {
            reject(errors.invalidImport(name, `the entry is ${entry.uncompressedSize} bytes; at most ${limit} are accepted`));
            return;
          }
          entries.push({ name, size: entry.uncompressedSize, entry });
        }
        zip.readEntry();
      });
      zip.readEntry();
    });
    return { zip, entries, close };
  } catch (error) {
    close();
    throw error;
  }
}

/** The bytes of an entry as a stream; its errors (a lying size, a damaged deflate stream) name the entry. */
export function openEntry(opened: OpenedZip, entry: ZipEntry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    opened.zip.openReadStream(entry.entry, (error, stream) => {
      if (error) reject(errors.invalidImport(entry.name, `the entry cannot be read (${error.message})`));
      else resolve(stream);
    });
  });
}

/**
 * Reads an entry's bytes, counted against the budget, handing each chunk to `take` until it returns
 * false (then the rest is left unread). The entry's own problems name it; a budget exceeded throws.
 */
export async function readEntry(opened: OpenedZip, entry: ZipEntry, budget: ImportBudget, take: (chunk: Buffer) => boolean): Promise<void> {
  budget.check();
  const stream = await openEntry(opened, entry);
  try {
    for await (const chunk of stream) {
      budget.spend((chunk as Buffer).length, entry.name);
      if (!take(chunk as Buffer)) break;
    }
  } catch (error) {
    // Our own (the budget), as it is; the stream's (a lying size, a damaged deflate stream) name the entry.
    if (error instanceof AppError) throw error;
    throw errors.invalidImport(entry.name, `the entry is damaged (${(stream.errored ?? (error as Error)).message})`);
  } finally {
    stream.destroy();
  }
}

/** An entry's bytes (at most its checked size), counted against the budget. */
export async function readEntryBytes(opened: OpenedZip, entry: ZipEntry, budget: ImportBudget): Promise<Buffer> {
  // Read into one buffer of the declared size (yauzl fails an entry whose bytes do not match it):
  // the bytes are never held twice, as chunks and joined.
  const bytes = Buffer.allocUnsafeSlow(entry.size);
  let length = 0;
  await readEntry(opened, entry, budget, (chunk) => {
    if (length + chunk.length > bytes.length) throw errors.invalidImport(entry.name, `the entry is damaged (it holds more than the ${entry.size} bytes it declares)`);
    chunk.copy(bytes, length);
    length += chunk.length;
    return true;
  });
  return length === bytes.length ? bytes : bytes.subarray(0, length);
}

/** An entry's text, UTF-8 (at most its checked size), counted against the budget. */
export async function readEntryText(opened: OpenedZip, entry: ZipEntry, budget: ImportBudget): Promise<string> {
  return decodeEntryText(await readEntryBytes(opened, entry, budget), entry.name);
}

/** UTF-8 text, or 400 naming the entry. */
export function decodeEntryText(bytes: Buffer, name: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw errors.invalidImport(name, 'the file is not UTF-8 text');
  }
}
