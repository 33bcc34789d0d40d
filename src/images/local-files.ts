import fs from 'node:fs/promises';
import path from 'node:path';

// File-system steps of the local image host (local.ts).

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Removes a file; one already gone is fine. */
export async function removeFile(file: string): Promise<void> {
  await fs.unlink(file).catch((error: unknown) => {
    if (!isMissing(error)) throw error;
  });
}

/** Writes `bytes` to `tempPath` (flushed) and renames it to `target`, so a reader never sees half a file. */
export async function writeInPlace(tempPath: string, target: string, bytes: Buffer): Promise<void> {
  try {
    await fs.mkdir(path.dirname(tempPath), { recursive: true });
    await fs.writeFile(tempPath, bytes, { flag: 'wx', flush: true });
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(tempPath, target);
  } catch (error) {
    await removeFile(tempPath).catch(() => {});
    throw error;
  }
}

/** Removes the files of `folder` last changed before `olderThan`; returns how many. A missing folder has none. */
export async function sweepFolder(folder: string, olderThan: Date): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(folder, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile() && stat.mtime < olderThan) {
      await removeFile(file);
      removed += 1;
    }
  }
  return removed;
}
