// Erases what has been in the trash longer than TRASH_RETENTION_DAYS: records' entries and whole
// campaigns, then their stored images (left queued for the next sweep when the host fails).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import { sweepTrashedCampaigns } from '../db/repositories/trashed-campaigns.js';
import type { ImageHost } from '../images/image-host.js';
import { removeQueuedImages } from '../images/uploads.js';
import { nowIso } from '../domain/time.js';
import { sweepExpiredTrash } from './trash.js';

const ENTRIES_PER_ROUND = 200;
const CAMPAIGNS_PER_ROUND = 5;
// A bound on one sweep's work; what is left waits for the next one.
const MAX_ROUNDS = 50;

export async function sweepTrash(database: Database, host: ImageHost, deletedBefore: Date, log: FastifyBaseLogger): Promise<{ entries: number; campaigns: number }> {
  const before = nowIso(deletedBefore);
  let entries = 0;
  let campaigns = 0;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const swept = await sweepExpiredTrash(database, before, ENTRIES_PER_ROUND);
    entries += swept.erased;
    await removeQueuedImages(database, host, swept.removals, log);
    if (swept.erased < ENTRIES_PER_ROUND) break;
  }
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const swept = await sweepTrashedCampaigns(database, before, CAMPAIGNS_PER_ROUND);
    campaigns += swept.erased;
    await removeQueuedImages(database, host, swept.removals, log);
    if (swept.erased < CAMPAIGNS_PER_ROUND) break;
  }
  return { entries, campaigns };
}
