import yauzl from 'yauzl';
import { ZipFile } from 'yazl';

/** Every entry of a zip, by name. */
export function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const files = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** A Unix mode (e.g. 0o120777 for a symbolic link). */
  mode?: number;
  compress?: boolean;
}

/** A zip of these entries, in memory (yazl). */
export function zipOf(entries: readonly ZipInput[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) {
    zip.addBuffer(typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data, entry.name, {
      ...(entry.mode === undefined ? {} : { mode: entry.mode }),
      compress: entry.compress ?? true,
      mtime: new Date('2026-01-02T03:04:05Z'),
    });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const out = zip.outputStream;
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    out.on('end', () => resolve(Buffer.concat(chunks)));
    out.on('error', reject);
  });
}

/** A multipart/form-data body with one file field. */
export function multipartFile(bytes: Buffer, fileName: string, field = 'file'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----loreforge${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return { payload: Buffer.concat([head, bytes, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface RawEntry {
  name: string;
  /** The entry's bytes as they stand in the zip: stored, or deflated when `deflated`. Default: none. */
  data?: Buffer;
  deflated?: boolean;
  /** The uncompressed size the headers declare (a zip bomb's may lie). Default: the data's length. */
  declaredSize?: number;
}

/**
 * A zip built byte by byte, for archives no zip library would write: sizes that lie, or 100,000
 * entries (yazl takes half a minute for those). CRCs are left 0; the reader does not check them.
 */
export function rawZip(entries: readonly RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = entry.data ?? Buffer.alloc(0);
    const method = entry.deflated ? 8 : 0;
    const declared = entry.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  // More than 65,535 entries need the Zip64 end records, as any zip tool writes them.
  const zip64: Buffer[] = [];
  if (entries.length > 0xffff) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    zip64.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, ...zip64, end]);
}

/** A small `loreforge-campaign` document (one thing type, nothing else), with `extra` replacing its parts. */
export const minimalDoc = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    format: 'loreforge-campaign',
    version: 1,
    exportedAt: '2026-01-01T00:00:00.000Z',
    campaign: { id: 1, slug: 'tiny', name: 'Tiny', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
    thingTypes: [{ id: 1, name: 'NPCs', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }],
    things: [],
    arcs: [],
    links: [],
    assets: [],
    members: [],
    ...extra,
  });
