// Writing an import plan: the campaign and everything in it, all or nothing, without holding the
// database's write lock for long (on SQLite one connection serves every write of the instance: an
// import writing 6,000 notes and their search index in one transaction kept every other write
// waiting for seconds). The use case owns the transactions; repository statements take them.
//
//   1. A first short transaction creates the campaign, with no member (so no request finds it) and
//      marked as being imported (db/repositories/campaign-imports.ts), and reserves the ids of all
//      its records: texts, link properties and parents name new ids from the start, so every row
//      is inserted once, in multi-row statements.
//   2. Staged images are placed at the image host (a rename, a server-side copy), outside any
//      transaction, under image ids the mark lists.
//   3. The records are inserted in slices (a thousand rows), then the search and mention indexes
//      are built in slices (25 records or 32 KiB of text): each slice its own short transaction, so
//      other writes run between them. The indexes are written from the rows in memory with the
//      same functions a trash restore uses (indexRestoredRecords/Mentions), not read back.
//   4. A last transaction makes the owner a member and removes the mark: the campaign appears whole.
//
// A failure at any step (a text over the limits, the client gone, a database error) erases the
// campaign (a hundred records a transaction) and removes the placed images before the error goes on. A process that dies meanwhile
// leaves a marked campaign nobody can see; sweepUnfinishedImports erases it and its images once its
// mark is older than UNFINISHED_IMPORT_GRACE_MS (at start-up and from the sweeper).
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { classifyDatabaseError } from '../db/errors.js';
import { indexCampaignMentions, indexRestoredMentions } from '../db/indexes/mentions.js';
import { indexRestoredRecords } from '../db/indexes/search.js';
import { queueReindex } from '../db/indexes/search-queue.js';
import { insertArcLinks } from '../db/repositories/arc-links.js';
import { insertArcs } from '../db/repositories/arcs.js';
import { forgetImageRemovals, insertAssets } from '../db/repositories/assets.js';
import { deleteImportedRecords, eraseCampaignImport, finishCampaignImport, markCampaignImport, staleCampaignImports, touchCampaignImport } from '../db/repositories/campaign-imports.js';
import { campaignSlugTaken, insertCampaign, setImportedCampaignDescription } from '../db/repositories/campaigns.js';
import { reserveIds } from '../db/repositories/ids.js';
import { insertThingTypes } from '../db/repositories/thing-types.js';
import { insertThings } from '../db/repositories/things.js';
import { slicesByWeight, rowWeight } from '../db/chunks.js';
import type { AssetsTable, CampaignRow, DB, ImageRemovalRow } from '../db/schema.js';
import { randomSlugSuffix, withSuffix } from '../domain/slugs.js';
import { nowIso } from '../domain/time.js';
import { dimensionColumns } from '../images/dimensions.js';
import { newImageId, type ImageHost, type StagedImage } from '../images/image-host.js';
import { makeVariants } from '../images/variants.js';
import type { ImportBudget } from './budget.js';
import type { ImportPlan } from './plan.js';
import { arcRows, remapRichText, storedText, thingRows, type IdMaps } from './plan-rows.js';

export { remapProperties, remapRichText } from './plan-rows.js';

export interface ImportCounts {
  thingTypes: number;
  things: number;
  arcs: number;
  links: number;
  assets: number;
}

/** Rows and characters of text one transaction inserts at most: a few tens of milliseconds of SQLite's lock. */
const RECORDS_PER_TRANSACTION = 1_000;
const RECORD_TEXT_PER_TRANSACTION = 4 * 1024 * 1024;
/** Records and characters of text one index slice takes: the index rows of a record are many (a posting per word and audience). */
const INDEX_RECORDS_PER_SLICE = 25;
const INDEX_TEXT_PER_SLICE = 32 * 1024;
/** Records one transaction of an erase deletes (with their index rows). */
const ERASE_RECORDS_PER_TRANSACTION = 100;
/** A mark older than this belongs to an import whose process died (each transaction of a live one renews it). */
export const UNFINISHED_IMPORT_GRACE_MS = 10 * 60_000;

/** The import was erased by the sweep while it ran (it had stopped writing for longer than the grace). */
function importTakenForDead(): Error {
  return new Error('the import stopped writing for longer than UNFINISHED_IMPORT_GRACE_MS and was erased');
}

interface Begun {
  campaign: CampaignRow;
  maps: IdMaps;
  /** The image id each asset (by key) will be placed under. */
  imageIds: Map<number, string>;
}

/** Step 1: the hidden, marked campaign and its records' ids, in one short transaction (a taken slug: look again). */
async function begin(database: Database, plan: ImportPlan, ownerId: string, fallbackSlug: string): Promise<Begun> {
  const c = plan.campaign;
  const imageIds = new Map(plan.assets.map((asset) => [asset.key, newImageId()]));
  for (let attempt = 0; ; attempt++) {
    try {
      return await database.write(async (trx) => {
        let slug = c.slug ?? fallbackSlug;
        while (await campaignSlugTaken(trx, slug)) slug = withSuffix(c.slug ?? fallbackSlug, randomSlugSuffix());
        const now = nowIso();
        const campaign = await insertCampaign(trx, {
          slug,
          name: c.name,
          description: null,
          user_id: ownerId,
          default_visibility: c.defaultVisibility ?? 'all',
          version: 1,
          created_at: c.createdAt,
          updated_at: c.updatedAt,
        });
        await markCampaignImport(trx, campaign.id, [...imageIds.values()], now);
        const ids = async (table: 'thing_types' | 'things' | 'arcs' | 'assets', keys: number[]) => {
          const reserved = await reserveIds(trx, table, keys.length);
          return new Map(keys.map((key, i) => [key, reserved[i]!]));
        };
        const maps: IdMaps = {
          types: await ids('thing_types', plan.thingTypes.map((t) => t.key)),
          things: await ids('things', plan.things.map((t) => t.key)),
          arcs: await ids('arcs', plan.arcs.map((a) => a.key)),
          assets: new Map(),
          urls: new Map(),
        };
        const assetIds = await ids('assets', plan.assets.map((a) => a.key));
        for (const [key, id] of assetIds) maps.assets.set(key, { id, url: '' });
        return { campaign, maps, imageIds };
      });
    } catch (error) {
      // Another campaign took the slug between our look and our insert: look again.
      if (classifyDatabaseError(error) !== 'unique' || attempt >= 3) throw error;
    }
  }
}

/** Runs `fn` in a write transaction of the import, renewing its mark; throws if the sweep erased it. */
function importWrite<T>(database: Database, campaignId: number, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return database.write(async (trx) => {
    await touchCampaignImport(trx, campaignId, nowIso());
    return fn(trx);
  });
}

/** What each step of the writing needs: the database, the campaign being written, the import's budget. */
interface Writing {
  database: Database;
  campaignId: number;
  budget: ImportBudget | undefined;
}

/** Runs `fn` on each slice of `rows` in a write transaction of its own, a step of progress per row. */
async function inSlices<R extends object>(w: Writing, rows: readonly R[], maxRows: number, maxText: number, fn: (trx: Transaction<DB>, slice: R[]) => Promise<void>): Promise<void> {
  for (const slice of slicesByWeight(rows, maxRows, maxText, rowWeight)) {
    w.budget?.check();
    await importWrite(w.database, w.campaignId, (trx) => fn(trx, slice));
    w.budget?.advance(slice.length);
  }
}

/** Step 2: places each asset's staged image at the host under its reserved image id (outside any transaction); returns the asset rows. */
async function placeImages(w: Writing, imageHost: ImageHost, plan: ImportPlan, begun: Begun, staged: Map<string, StagedImage>, ownerId: string): Promise<Insertable<AssetsTable>[]> {
  const rows: Insertable<AssetsTable>[] = [];
  for (const asset of plan.assets) {
    w.budget?.check();
    const ref = { campaignId: w.campaignId, imageId: begun.imageIds.get(asset.key)! };
    const where = await imageHost.placeStaged(staged.get(asset.file)!, ref);
    staged.delete(asset.file);
    // As an upload's confirmation does (images/variants.ts): none when sharp refuses the image.
    const variants = await makeVariants(imageHost, where, ref);
    const id = begun.maps.assets.get(asset.key)!.id;
    begun.maps.assets.set(asset.key, { id, url: where.url });
    if (asset.url !== undefined) begun.maps.urls.set(asset.url, where.url);
    rows.push({
      id,
      campaign_id: w.campaignId,
      user_id: ownerId,
      image_id: ref.imageId,
      label: asset.label,
      storage_key: where.storageKey,
      url: where.url,
      content_type: where.contentType,
      byte_size: where.byteSize,
      ...dimensionColumns(where.dimensions),
      has_variants: variants.made ? 1 : 0,
      created_at: asset.createdAt,
    });
    // Every hundred images the mark is renewed: placing many (S3 copies) may take a while.
    if (rows.length % 100 === 0) await importWrite(w.database, w.campaignId, () => Promise.resolve());
  }
  return rows;
}

/** Step 3: the records (rows by the thousand a transaction), then their search and mention indexes (50 records a transaction). */
async function writeRecords(w: Writing, plan: ImportPlan, maps: IdMaps, assetRows: Insertable<AssetsTable>[]): Promise<void> {
  const { campaignId } = w;
  // Every text is checked against the limits here, before any record is written.
  const things = thingRows(plan, campaignId, maps);
  const arcs = arcRows(plan, campaignId, maps);
  const description = storedText(remapRichText(plan.campaign.description, maps), plan.campaign.origin);
  const typeRows = plan.thingTypes.map((t) => ({
    id: maps.types.get(t.key)!,
    campaign_id: campaignId,
    name: t.name,
    name_key: t.name.toLowerCase(),
    fields: JSON.stringify(t.fields),
    version: 1,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }));
  const linkRows = plan.links.map((l) => ({ campaign_id: campaignId, arc_id: maps.arcs.get(l.arcKey)!, thing_id: maps.things.get(l.thingKey)!, created_at: l.createdAt }));

  await importWrite(w.database, campaignId, async (trx) => {
    await insertThingTypes(trx, typeRows);
    await insertAssets(trx, assetRows);
  });
  w.budget?.advance(typeRows.length + assetRows.length);
  await inSlices(w, things, RECORDS_PER_TRANSACTION, RECORD_TEXT_PER_TRANSACTION, insertThings);
  await inSlices(w, arcs, RECORDS_PER_TRANSACTION, RECORD_TEXT_PER_TRANSACTION, insertArcs);
  await inSlices(w, linkRows, RECORDS_PER_TRANSACTION, RECORD_TEXT_PER_TRANSACTION, insertArcLinks);

  await importWrite(w.database, campaignId, async (trx) => {
    const row = await setImportedCampaignDescription(trx, campaignId, description);
    await queueReindex(trx, campaignId, 'campaign', campaignId);
    await indexCampaignMentions(trx, row, true);
  });
  w.budget?.advance(1);
  await inSlices(w, things, INDEX_RECORDS_PER_SLICE, INDEX_TEXT_PER_SLICE, async (trx, slice) => {
    await indexRestoredRecords(trx, campaignId, slice, []);
    await indexRestoredMentions(trx, slice, []);
  });
  await inSlices(w, arcs, INDEX_RECORDS_PER_SLICE, INDEX_TEXT_PER_SLICE, async (trx, slice) => {
    await indexRestoredRecords(trx, campaignId, [], slice);
    await indexRestoredMentions(trx, [], slice);
  });
}

/**
 * Creates the campaign of `plan`, owned by `ownerId` (see the top of this file). `staged` holds
 * the staged bytes of each asset's `file`; each is placed or discarded by the time this returns.
 * Progress: every record written and every record indexed is a step of `budget`.
 */
export async function writePlan(
  database: Database,
  imageHost: ImageHost,
  plan: ImportPlan,
  ownerId: string,
  staged: Map<string, StagedImage>,
  fallbackSlug: string,
  budget?: ImportBudget,
): Promise<{ campaign: CampaignRow; counts: ImportCounts }> {
  const records = plan.thingTypes.length + plan.assets.length + plan.things.length + plan.arcs.length + plan.links.length;
  budget?.addSteps(records + plan.things.length + plan.arcs.length + 1);
  let begun: Begun | undefined;
  try {
    budget?.check();
    begun = await begin(database, plan, ownerId, fallbackSlug);
    const w: Writing = { database, campaignId: begun.campaign.id, budget };
    const assetRows = await placeImages(w, imageHost, plan, begun, staged, ownerId);
    await writeRecords(w, plan, begun.maps, assetRows);
    // Step 4: the campaign appears, whole. A client gone by now: nothing is created.
    budget?.check();
    const finished = await database.write((trx) => finishCampaignImport(trx, w.campaignId, ownerId, nowIso()));
    if (!finished) throw importTakenForDead();
    return {
      campaign: finished,
      counts: { thingTypes: plan.thingTypes.length, things: plan.things.length, arcs: plan.arcs.length, links: plan.links.length, assets: plan.assets.length },
    };
  } catch (error) {
    if (begun) await abandon(database, imageHost, begun.campaign.id);
    throw error;
  } finally {
    await Promise.all([...staged.values()].map((image) => imageHost.discardStaged(image).catch(() => {})));
  }
}

/** Removes queued images at the host and forgets them; when the host fails they stay queued for the upload sweeper. */
async function removeImages(database: Database, imageHost: ImageHost, removals: readonly ImageRemovalRow[]): Promise<void> {
  if (removals.length === 0) return;
  await imageHost.remove(removals.map((r) => ({ campaignId: r.campaign_id, imageId: r.image_id })));
  await forgetImageRemovals(
    database.kysely,
    removals.map((r) => r.id),
  );
}

/** Deletes the records of a campaign being imported a slice a transaction (the write lock stays short). */
async function eraseInSlices(database: Database, campaignId: number, staleBefore?: string): Promise<void> {
  while ((await database.write((trx) => deleteImportedRecords(trx, campaignId, ERASE_RECORDS_PER_TRANSACTION, staleBefore))) > 0);
}

/**
 * Undoes a failed import: the campaign goes, and the images placed for it. Whatever fails here is
 * left to the sweeps (the mark stays until the campaign is erased; queued images stay queued).
 */
async function abandon(database: Database, imageHost: ImageHost, campaignId: number): Promise<void> {
  try {
    await eraseInSlices(database, campaignId);
    const removals = await database.write((trx) => eraseCampaignImport(trx, campaignId));
    await removeImages(database, imageHost, removals ?? []);
  } catch {
    // Left to the sweeps.
  }
}

/**
 * Erases the campaigns of imports whose process died (marked, and not written for longer than
 * `graceMs`, UNFINISHED_IMPORT_GRACE_MS by default), with the images placed for them; returns how many. At start-up and
 * from the sweeper: a live import renews its mark with every transaction, so it is never taken.
 */
export async function sweepUnfinishedImports(database: Database, imageHost: ImageHost, now = new Date(), graceMs = UNFINISHED_IMPORT_GRACE_MS, limit = 20): Promise<number> {
  const before = new Date(now.getTime() - graceMs).toISOString();
  let erased = 0;
  for (const campaignId of await staleCampaignImports(database.kysely, before, limit)) {
    await eraseInSlices(database, campaignId, before);
    const removals = await database.write((trx) => eraseCampaignImport(trx, campaignId, before));
    if (!removals) continue;
    erased += 1;
    await removeImages(database, imageHost, removals).catch(() => {});
  }
  return erased;
}
