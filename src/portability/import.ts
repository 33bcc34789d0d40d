// Importing a campaign (CONTRACT "Portability"): a `loreforge-campaign` JSON document, an archive
// (campaign.json and images/), our own Markdown export or a Markdown vault made elsewhere. The file
// is on disk (the route spools the upload there, within IMPORT_MAX_BYTES); a zip is read by random
// access, entry by entry, so it is never held in memory whole. Three steps:
//   1. read and check everything: any problem is 400 invalid_import naming the entry (a vault from
//      elsewhere is read leniently: what cannot be read as it should becomes a warning);
//   2. stage each image at the image host (checked like an upload; no record names it yet);
//   3. write the campaign (write-plan.ts): created invisible, filled in short transactions, then
//      made its owner's; placing the staged images.
// A failure at any step leaves nothing behind: no records, no images. A dry run stops after step 2.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../db/database.js';
import type { CampaignRow } from '../db/schema.js';
import { errors } from '../domain/errors.js';
import { slugifyName } from '../domain/slugs.js';
import type { ImageHost, StagedImage } from '../images/image-host.js';
import { ImportBudget } from './budget.js';
import { openJsonDocument } from './json-document/parse.js';
import { planFromDocument } from './json-document/read.js';
import type { ImportPlan, ImportWarning } from './plan.js';
import { isImageFile, isMarkdownFile } from './vault/layout.js';
import { MARKDOWN_MAX_BYTES, planFromVault, withoutAssets } from './vault/read.js';
import { writePlan, type ImportCounts } from './write-plan.js';
import { openEntry, openZip, readEntryBytes, type OpenedZip } from './zip.js';

/** Where the import route spools an upload: os.tmpdir(), `loreforge-import-<random>`. */
export const IMPORT_SPOOL_PREFIX = 'loreforge-import-';

export function importSpoolFile(): string {
  return path.join(os.tmpdir(), `${IMPORT_SPOOL_PREFIX}${randomBytes(8).toString('hex')}`);
}

/** Spooled uploads older than `olderThan` (a crash mid-import leaves them); returns how many were removed. */
export async function sweepImportSpools(olderThan: Date, dir = os.tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(dir)) {
    if (!name.startsWith(IMPORT_SPOOL_PREFIX)) continue;
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile() && stat.mtime < olderThan) {
      await fs.rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/** What a file is, by its first bytes: a zip (`PK`) or, anything else, a JSON document (checked when read). */
export async function fileKind(file: string): Promise<'zip' | 'json'> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x50 && head[1] === 0x4b ? 'zip' : 'json';
  } finally {
    await handle.close();
  }
}

/** The largest JSON document read (record by record, json-worker.mjs): 64 MiB, several times a 10,000-thing campaign. */
export const IMPORT_JSON_MAX_BYTES = 64 * 1024 * 1024;

export type ImportFormat = 'json' | 'archive' | 'markdown';

export interface ImportReport {
  format: ImportFormat;
  counts: ImportCounts;
  warnings: ImportWarning[];
}

export interface ImportSource {
  /** The file on disk. */
  file: string;
  /** What the caller says it is: a zip (archive or vault) or a JSON document. */
  kind: 'zip' | 'json';
  /** The name the file came with (names a vault's campaign when nothing in it does). */
  fileName?: string | undefined;
  /** How the file is named in problems: the file name, or "the request body". */
  label: string;
}

export interface Importer {
  ownerId: string;
  /** Whether the owner may store uploaded images (premium; the command line may always). */
  mayStoreImages: boolean;
}

async function readJsonFile(file: string, label: string, budget: ImportBudget): Promise<Buffer> {
  const { size } = await fs.stat(file);
  if (size > IMPORT_JSON_MAX_BYTES) throw errors.invalidImport(label, `the JSON document is ${size} bytes; at most ${IMPORT_JSON_MAX_BYTES} are read`);
  budget.spend(size, label);
  return fs.readFile(file);
}

/** The plan of the JSON document in `bytes` (which are the reader's from then on), read in a worker. */
async function planFromBytes(bytes: Buffer, entry: string, withImages: boolean, budget: ImportBudget): Promise<ImportPlan> {
  const document = await openJsonDocument(bytes, entry, budget);
  try {
    return await planFromDocument(document, entry, withImages, budget);
  } finally {
    document.close();
  }
}

/**
 * Stages the bytes of every asset of the plan; on any problem, discards what was staged and throws.
 * A vault's (`lenient`) image over MAX_UPLOAD_BYTES or of an unknown kind is left out instead, with
 * a warning, and the blocks showing it keep its alt text (withoutAssets).
 */
async function stageImages(opened: OpenedZip, plan: ImportPlan, imageHost: ImageHost, maxImageBytes: number, budget: ImportBudget, lenient = false): Promise<Map<string, StagedImage>> {
  const staged = new Map<string, StagedImage>();
  const byName = new Map(opened.entries.map((e) => [e.name, e]));
  const skipped = new Set<number>();
  const skip = (key: number, entry: string, problem: string) => {
    skipped.add(key);
    plan.warnings.push({ entry, problem: `${problem.replace(/\.$/, '')}: not imported` });
    budget.advance();
  };
  // One step of the job's progress per image stored.
  budget.addSteps(new Set(plan.assets.map((asset) => asset.file)).size);
  try {
    for (const asset of plan.assets) {
      if (staged.has(asset.file)) continue;
      const entry = byName.get(asset.file);
      if (!entry) throw errors.invalidImport(asset.file, 'the archive has no such entry (campaign.json names it as an image)');
      const tooLarge = `the image is ${entry.size} bytes; at most ${maxImageBytes} (MAX_UPLOAD_BYTES) are accepted`;
      if (entry.size > maxImageBytes && lenient) {
        skip(asset.key, entry.name, tooLarge);
        continue;
      }
      if (entry.size > maxImageBytes) throw errors.invalidImport(entry.name, tooLarge);
      // Its declared size is what is read: yauzl fails an entry whose bytes do not match it.
      budget.check();
      budget.spend(entry.size, entry.name);
      const stream = await openEntry(opened, entry);
      let outcome;
      try {
        outcome = await imageHost.stage(stream, entry.size);
      } catch (error) {
        // yauzl's own checks of the entry (its declared size, its deflate stream) fail the stream.
        if (stream.errored) throw errors.invalidImport(entry.name, `the entry is damaged (${stream.errored.message})`);
        throw error;
      } finally {
        stream.destroy();
      }
      if (stream.errored) {
        if (outcome.kind === 'staged') await imageHost.discardStaged(outcome.image);
        throw errors.invalidImport(entry.name, `the entry is damaged (${stream.errored.message})`);
      }
      if (outcome.kind !== 'staged' && lenient) {
        skip(asset.key, entry.name, outcome.kind === 'too_large' ? `the image is larger than the ${maxImageBytes} bytes (MAX_UPLOAD_BYTES) accepted` : outcome.reason);
        continue;
      }
      if (outcome.kind === 'too_large') throw errors.invalidImport(entry.name, `the image is larger than the ${maxImageBytes} bytes (MAX_UPLOAD_BYTES) accepted`);
      if (outcome.kind === 'unsupported') throw errors.invalidImport(entry.name, outcome.reason);
      staged.set(asset.file, outcome.image);
      budget.advance();
    }
    withoutAssets(plan, skipped);
    return staged;
  } catch (error) {
    await Promise.all([...staged.values()].map((image) => imageHost.discardStaged(image).catch(() => {})));
    throw error;
  }
}

function baseName(fileName: string | undefined): string {
  const name = path.basename(fileName ?? '').replace(/\.(zip|json)$/i, '').trim();
  return name === '' ? 'Imported vault' : name;
}

export interface ImportOptions {
  /** Read and check everything, stage and discard the images, write nothing: the report the import would give. */
  dryRun?: boolean;
  /** `gm`: every imported thing and arc is GM-only (CONTRACT "Import from elsewhere": `visibility=gm`). */
  visibility?: 'gm' | undefined;
}

/** Every thing and arc of the plan GM-only (`visibility=gm`); assets have no visibility. */
export function makeGmOnly(plan: ImportPlan): void {
  for (const thing of plan.things) thing.visibility = 'gm';
  for (const arc of plan.arcs) arc.visibility = 'gm';
}

/** What writing the plan creates (as writePlan counts it). */
function plannedCounts(plan: ImportPlan): ImportCounts {
  return { thingTypes: plan.thingTypes.length, things: plan.things.length, arcs: plan.arcs.length, links: plan.links.length, assets: plan.assets.length };
}

/**
 * Reads, checks and imports the file: the new campaign and what was imported. Everything read
 * counts against `budget` (IMPORT_MAX_EXPANDED_BYTES); when its signal aborts (the client went
 * away) the import stops at the next step with ImportCancelled, and nothing is created.
 */
export async function importCampaign(
  database: Database,
  imageHost: ImageHost,
  source: ImportSource,
  importer: Importer,
  maxImageBytes: number,
  budget: ImportBudget = new ImportBudget(Number.POSITIVE_INFINITY),
  options: Omit<ImportOptions, 'dryRun'> = {},
): Promise<{ campaign: CampaignRow; report: ImportReport }> {
  const outcome = await runImport(database, imageHost, source, importer, maxImageBytes, budget, { ...options, dryRun: false });
  return { campaign: outcome.campaign!, report: outcome.report };
}

/**
 * A dry run: every check the import makes (the file read whole, premium for images, each image
 * staged at the image host and discarded), and the report it would give; nothing is created.
 */
export async function dryRunImport(
  database: Database,
  imageHost: ImageHost,
  source: ImportSource,
  importer: Importer,
  maxImageBytes: number,
  budget: ImportBudget = new ImportBudget(Number.POSITIVE_INFINITY),
  options: Omit<ImportOptions, 'dryRun'> = {},
): Promise<ImportReport> {
  return (await runImport(database, imageHost, source, importer, maxImageBytes, budget, { ...options, dryRun: true })).report;
}

async function runImport(
  database: Database,
  imageHost: ImageHost,
  source: ImportSource,
  importer: Importer,
  maxImageBytes: number,
  budget: ImportBudget,
  options: ImportOptions,
): Promise<{ campaign: CampaignRow | undefined; report: ImportReport }> {
  const fallbackSlug = slugifyName(baseName(source.fileName)) || 'campaign';
  const finish = async (plan: ImportPlan, format: ImportFormat, staged: Map<string, StagedImage>) => {
    if (options.visibility === 'gm') makeGmOnly(plan);
    if (options.dryRun) {
      await Promise.all([...staged.values()].map((image) => imageHost.discardStaged(image).catch(() => {})));
      budget.check();
      return { campaign: undefined, report: { format, counts: plannedCounts(plan), warnings: plan.warnings } };
    }
    const { campaign, counts } = await writePlan(database, imageHost, plan, importer.ownerId, staged, fallbackSlug, budget);
    return { campaign, report: { format, counts, warnings: plan.warnings } };
  };
  if (source.kind === 'json') {
    const plan = await planFromBytes(await readJsonFile(source.file, source.label, budget), source.label, false, budget);
    return finish(plan, 'json', new Map());
  }

  const opened = await openZip(source.file, source.label, (name) =>
    // An image over MAX_UPLOAD_BYTES is refused (archive) or left out (vault) when staged.
    name === 'campaign.json' ? IMPORT_JSON_MAX_BYTES : name.toLowerCase().endsWith('.md') ? MARKDOWN_MAX_BYTES : Number.POSITIVE_INFINITY,
  );
  try {
    const document = opened.entries.find((e) => e.name === 'campaign.json');
    // What will be read: refused at once when the sizes the zip declares add up past the budget.
    budget.checkDeclared(
      source.label,
      opened.entries.filter((e) => e.name === 'campaign.json' || isMarkdownFile(e.name) || isImageFile(e.name)).map((e) => e.size),
    );
    let plan: ImportPlan;
    let format: ImportFormat;
    if (document) {
      format = 'archive';
      plan = await planFromBytes(await readEntryBytes(opened, document, budget), 'campaign.json', true, budget);
    } else if (opened.entries.some((e) => isMarkdownFile(e.name))) {
      format = 'markdown';
      plan = await planFromVault(opened, baseName(source.fileName), budget);
    } else {
      throw errors.invalidImport(source.label, 'the archive holds neither campaign.json (an archive export) nor Markdown files (a vault)');
    }
    const images = new Set(plan.assets.map((a) => a.file)).size;
    if (images > 0 && !importer.mayStoreImages) throw errors.premiumRequiredForImport(images);
    const staged = await stageImages(opened, plan, imageHost, maxImageBytes, budget, plan.lenient === true);
    return await finish(plan, format, staged);
  } finally {
    opened.close();
  }
}
