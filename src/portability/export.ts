// Exporting a campaign (CONTRACT "Portability"), for the API's route and the command line alike,
// so the two cannot drift: `json` (json-document/: one document with every record, id, slug, field
// and timestamp), `archive` (archive.ts: that document as campaign.json plus every uploaded image's
// bytes under images/) and `markdown` (vault/write.ts: a zip that opens as an Obsidian vault).
// Each is a stream, written as the records are read.
import { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import type { CampaignRow } from '../db/schema.js';
import type { ImageHost } from '../images/image-host.js';
import { campaignArchive } from './archive.js';
import { campaignJson } from './json-document/write.js';
import { campaignVault } from './vault/write.js';

export const EXPORT_FORMATS = ['archive', 'json', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface CampaignExport {
  stream: Readable;
  /** `<slug>-<day>.json`, `<slug>-<day>.zip` or `<slug>-<day>-vault.zip` (the day of `exportedAt`, UTC). */
  fileName: string;
  contentType: 'application/json; charset=utf-8' | 'application/zip';
}

/** The campaign in `format`, as a stream to send or save; `now` is the document's `exportedAt`. */
export function exportCampaign(database: Database, imageHost: ImageHost, campaign: CampaignRow, format: ExportFormat, now = new Date()): CampaignExport {
  const db = database.kysely;
  const exportedAt = now.toISOString();
  const day = exportedAt.slice(0, 10);
  switch (format) {
    case 'json':
      return { stream: Readable.from(campaignJson(db, campaign, exportedAt)), fileName: `${campaign.slug}-${day}.json`, contentType: 'application/json; charset=utf-8' };
    case 'archive':
      return { stream: campaignArchive(db, campaign, imageHost, exportedAt), fileName: `${campaign.slug}-${day}.zip`, contentType: 'application/zip' };
    case 'markdown':
      return { stream: campaignVault(db, campaign, imageHost), fileName: `${campaign.slug}-${day}-vault.zip`, contentType: 'application/zip' };
  }
}
