// The `archive` export: a zip of the json document as campaign.json and every uploaded image's
// bytes under images/ (where the document's `file` says). Written by yazl as the entries' streams
// are read, each opened only when its turn comes: neither the document nor an image is held whole.
// The vault writer (vault/write.ts) adds its images the same way.
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Db } from '../db/database.js';
import { assetPages } from '../db/repositories/campaign-export.js';
import type { CampaignRow } from '../db/schema.js';
import type { ImageHost } from '../images/image-host.js';
import { campaignJson } from './json-document/write.js';
import { assetFile } from './stored.js';

/** Adds every uploaded image's bytes to the zip, each read only when the zip comes to it. */
export async function addImages(zip: ZipFile, db: Db, campaignId: number, imageHost: ImageHost): Promise<void> {
  for await (const rows of assetPages(db, campaignId)) {
    for (const asset of rows) {
      zip.addReadStreamLazy(assetFile(asset), { compress: false }, (callback) => {
        imageHost.read(asset.storage_key).then(
          (stream) => callback(null, stream),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null as never),
        );
      });
    }
  }
}

/** yazl's output, a Node stream (its types say only ReadableStream). */
export function outputOf(zip: ZipFile): Readable {
  return zip.outputStream as unknown as Readable;
}

/** The zip's output stream, ended by `build` or destroyed with its error. */
export function zipStream(build: (zip: ZipFile) => Promise<void>): Readable {
  const zip = new ZipFile();
  build(zip).then(
    () => zip.end(),
    (error: unknown) => outputOf(zip).destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return outputOf(zip);
}

/** The `archive` export: campaign.json and images/, as a zip stream. */
export function campaignArchive(db: Db, campaign: CampaignRow, imageHost: ImageHost, exportedAt: string): Readable {
  return zipStream(async (zip) => {
    zip.addReadStreamLazy('campaign.json', (callback) => callback(null, Readable.from(campaignJson(db, campaign, exportedAt))));
    await addImages(zip, db, campaign.id, imageHost);
  });
}
