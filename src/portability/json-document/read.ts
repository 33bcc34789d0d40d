// Reading a `loreforge-campaign` document (the json export, an archive's campaign.json) into an
// import plan (../plan.ts). Our own format is read as strictly as the API reads a request: every
// problem is reported with a JSON pointer, before anything is written. The keys read are those of
// schema.ts (a test holds them to it); a key marked optional there is taken absent, as its
// description says.
//
// The records of the document's arrays come one at a time from the off-thread reader (parse.ts),
// and the plan keeps only what it needs of each; checking pauses every hundred records, letting
// other requests run between, and stops once there are problems enough to report.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import { checkAgainstFields, type TypeField } from '../../domain/properties.js';
import type { RichText } from '../../domain/rich-text.js';
import type { ImportBudget } from '../budget.js';
import { DocumentChecker, isObject, type Json } from './checker.js';
import { arcCycle, importProblems, type ImportPlan, type ImportWarning, type PlannedArc, type PlannedAsset, type PlannedThing, type PlannedType } from '../plan.js';
import type { JsonDocument } from './parse.js';
import { DOCUMENT_FORMAT, DOCUMENT_VERSION } from './schema.js';

/** Records checked between two turns of the event loop: a large document never holds it for long. */
const RECORDS_PER_TURN = 100;

/** One document being read: its checker, its top-level object, and its arrays' records. */
class Reading {
  readonly check = new DocumentChecker();
  readonly doc: Json;
  private checked = 0;

  constructor(
    readonly source: JsonDocument,
    readonly entry: string,
    private readonly budget: ImportBudget | undefined,
  ) {
    this.doc = this.check.object(source.head, '');
  }

  /** The records of top-level array `key` with their indexes: from the reader, or the value in memory. */
  async *records(key: string, fallback?: unknown[]): AsyncGenerator<[number, unknown]> {
    if (this.check.full()) return;
    let i = 0;
    const records = this.source.arrays.has(key) ? this.source.records(key) : this.check.array(this.doc[key] ?? fallback, `/${key}`);
    for await (const record of records) {
      if (this.check.full()) return;
      await this.pause();
      yield [i, record];
      i += 1;
    }
  }

  /** Every hundred records, lets other requests run, and stops (ImportCancelled) once the budget's client is gone. */
  private async pause(): Promise<void> {
    this.checked += 1;
    if (this.checked % RECORDS_PER_TURN !== 0) return;
    await yieldToEventLoop();
    this.budget?.check();
  }

  /** 400 invalid_import naming the entry and every problem, if there are any. */
  throwIfProblems(): void {
    if (this.check.issues.length > 0) throw importProblems(this.entry, this.check.issues);
  }
}

function readFormat({ check, doc }: Reading): void {
  if (doc.format !== DOCUMENT_FORMAT) check.issues.push({ path: '/format', message: `must be "${DOCUMENT_FORMAT}"` });
  if (doc.version !== DOCUMENT_VERSION) check.issues.push({ path: '/version', message: `must be ${DOCUMENT_VERSION} (the only version this service reads)` });
}

function readCampaign({ check, doc, entry }: Reading): ImportPlan['campaign'] {
  const c = check.object(doc.campaign, '/campaign');
  const campaign = {
    slug: c.slug === undefined ? undefined : check.slug(c.slug, '/campaign/slug'),
    name: check.name(c.name, '/campaign/name'),
    description: c.description === undefined ? undefined : check.richText(c.description, '/campaign/description'),
    // Absent from documents exported before it existed: those campaigns' default was `all`.
    defaultVisibility: check.visibility(c.defaultVisibility, '/campaign/defaultVisibility'),
    createdAt: check.timestamp(c.createdAt, '/campaign/createdAt'),
    updatedAt: check.timestamp(c.updatedAt, '/campaign/updatedAt'),
  };
  return { ...campaign, description: campaign.description ?? [], origin: { entry, path: '/campaign/description' } };
}

async function readThingTypes(reading: Reading): Promise<{ thingTypes: PlannedType[]; ids: Set<number>; fields: Map<number, TypeField[]> }> {
  const { check } = reading;
  const ids = new Set<number>();
  const names = new Set<string>();
  const fieldsByType = new Map<number, TypeField[]>();
  const thingTypes: PlannedType[] = [];
  for await (const [i, raw] of reading.records('thingTypes')) {
    const path = `/thingTypes/${i}`;
    const t = check.object(raw, path);
    const name = check.name(t.name, `${path}/name`);
    if (name !== '' && names.has(name.toLowerCase())) check.issues.push({ path: `${path}/name`, message: `repeats the type name "${name}"` });
    names.add(name.toLowerCase());
    const fields = t.fields === undefined ? [] : check.fields(t.fields, `${path}/fields`);
    const key = check.key(t.id, `${path}/id`, ids);
    fieldsByType.set(key, fields);
    thingTypes.push({ key, name, fields, createdAt: check.timestamp(t.createdAt, `${path}/createdAt`), updatedAt: check.timestamp(t.updatedAt, `${path}/updatedAt`) });
  }
  return { thingTypes, ids, fields: fieldsByType };
}

async function readThings(reading: Reading, types: { ids: Set<number>; fields: Map<number, TypeField[]> }): Promise<{ things: PlannedThing[]; ids: Set<number> }> {
  const { check, entry } = reading;
  const ids = new Set<number>();
  const slugs = new Set<string>();
  const things: PlannedThing[] = [];
  for await (const [i, raw] of reading.records('things')) {
    const path = `/things/${i}`;
    const t = check.object(raw, path);
    const typeKey = check.reference(t.typeId, `${path}/typeId`, types.ids, 'thing type');
    const structure = check.structureOf(t, path);
    // A value of a key the type declares matches its kind, as the API requires.
    checkAgainstFields(structure.properties, types.fields.get(typeKey) ?? [], `${path}/properties`, check.issues);
    things.push({
      key: check.key(t.id, `${path}/id`, ids),
      slug: check.uniqueSlug(t.slug, `${path}/slug`, slugs),
      typeKey,
      name: check.name(t.name, `${path}/name`),
      visibility: check.visibility(t.visibility, `${path}/visibility`),
      description: t.description === undefined ? [] : check.richText(t.description, `${path}/description`),
      ...structure,
      createdAt: check.timestamp(t.createdAt, `${path}/createdAt`),
      updatedAt: check.timestamp(t.updatedAt, `${path}/updatedAt`),
      origin: { entry, path: `${path}/description` },
    });
  }
  return { things, ids };
}

async function readArcs(reading: Reading): Promise<{ arcs: PlannedArc[]; ids: Set<number> }> {
  const { check, entry } = reading;
  // Every id given, valid or not (what a parent may name), and the ids checked (what links may name).
  const given = new Set<number>();
  const ids = new Set<number>();
  const slugs = new Set<string>();
  const arcs: PlannedArc[] = [];
  // A parent may come later in the file: parents are checked once every arc's id is known.
  const parents: { arc: PlannedArc; value: unknown; path: string }[] = [];
  for await (const [i, raw] of reading.records('arcs')) {
    if (isObject(raw) && typeof raw.id === 'number') given.add(raw.id);
    const path = `/arcs/${i}`;
    const a = check.object(raw, path);
    const fields = {} as Record<ArcTextField, RichText>;
    for (const field of ARC_TEXT_FIELDS) fields[field] = a[field] === undefined ? [] : check.richText(a[field], `${path}/${field}`);
    const arc: PlannedArc = {
      key: check.key(a.id, `${path}/id`, ids),
      slug: check.uniqueSlug(a.slug, `${path}/slug`, slugs),
      name: check.name(a.name, `${path}/name`),
      parentKey: null,
      visibility: check.visibility(a.visibility, `${path}/visibility`),
      fields,
      ...check.structureOf(a, path),
      createdAt: check.timestamp(a.createdAt, `${path}/createdAt`),
      updatedAt: check.timestamp(a.updatedAt, `${path}/updatedAt`),
      origin: { entry, path },
    };
    arcs.push(arc);
    if (a.parentArcId !== null && a.parentArcId !== undefined) parents.push({ arc, value: a.parentArcId, path: `${path}/parentArcId` });
  }
  for (const { arc, value, path } of parents) {
    if (check.full()) break;
    arc.parentKey = check.reference(value, path, given, 'arc');
  }
  if (check.issues.length === 0) {
    const cycle = arcCycle(arcs);
    if (cycle !== undefined) check.issues.push({ path: `/arcs/${cycle}/parentArcId`, message: 'makes the arcs a loop (an arc cannot be its own ancestor)' });
  }
  return { arcs, ids };
}

async function readLinks(reading: Reading, thingIds: Set<number>, arcIds: Set<number>): Promise<ImportPlan['links']> {
  const { check } = reading;
  const pairs = new Set<string>();
  const links: ImportPlan['links'] = [];
  for await (const [i, raw] of reading.records('links')) {
    const path = `/links/${i}`;
    const l = check.object(raw, path);
    const thingKey = check.reference(l.thingId, `${path}/thingId`, thingIds, 'thing');
    const arcKey = check.reference(l.arcId, `${path}/arcId`, arcIds, 'arc');
    const pair = `${thingKey}:${arcKey}`;
    if (pairs.has(pair)) check.issues.push({ path, message: 'repeats a link' });
    pairs.add(pair);
    links.push({ thingKey, arcKey, createdAt: check.timestamp(l.createdAt, `${path}/createdAt`) });
  }
  return links;
}

/** The uploaded images (`withImages`: the document came in an archive, whose `file` entries hold the bytes). */
async function readAssets(reading: Reading, withImages: boolean): Promise<PlannedAsset[]> {
  const { check } = reading;
  const ids = new Set<number>();
  const files = new Set<string>();
  const assets: PlannedAsset[] = [];
  for await (const [i, raw] of reading.records('assets', [])) {
    const path = `/assets/${i}`;
    const s = check.object(raw, path);
    const file = typeof s.file === 'string' ? s.file : '';
    if (withImages && file === '') check.issues.push({ path: `${path}/file`, message: 'must name the archive entry with the image’s bytes' });
    else if (withImages && files.has(file)) check.issues.push({ path: `${path}/file`, message: 'names the same entry as another asset' });
    files.add(file);
    assets.push({
      key: check.key(s.id, `${path}/id`, ids),
      label: check.name(s.label, `${path}/label`),
      url: typeof s.url === 'string' ? s.url : undefined,
      file,
      createdAt: check.timestamp(s.createdAt, `${path}/createdAt`),
    });
  }
  return assets;
}

/** What the import leaves out: a json document's image bytes, and the members. */
function warningsOf({ source, doc, entry }: Reading, assets: number, withImages: boolean): ImportWarning[] {
  const warnings: ImportWarning[] = [];
  if (!withImages && assets > 0) {
    warnings.push({
      entry,
      problem: `${assets} uploaded image${assets === 1 ? ' was' : 's were'} not imported: a json document carries no image bytes (import the archive for them). Image blocks keep their URLs.`,
    });
  }
  const members = source.arrays.get('members') ?? (Array.isArray(doc.members) ? doc.members.length : 0);
  if (members > 1) warnings.push({ entry, problem: `${members - 1} other member${members === 2 ? ' was' : 's were'} not imported: invite them again.` });
  return warnings;
}

/**
 * The plan of a `loreforge-campaign` document, or 400 invalid_import naming `entry` and every
 * problem (`withImages`: the document came in an archive, whose `file` entries hold the bytes).
 * Stops with ImportCancelled once the budget's client is gone.
 */
export async function planFromDocument(source: JsonDocument, entry: string, withImages: boolean, budget?: ImportBudget): Promise<ImportPlan> {
  const reading = new Reading(source, entry, budget);
  readFormat(reading);
  reading.throwIfProblems();
  const campaign = readCampaign(reading);
  const types = await readThingTypes(reading);
  const things = await readThings(reading, types);
  const arcs = await readArcs(reading);
  const links = await readLinks(reading, things.ids, arcs.ids);
  const assets = await readAssets(reading, withImages);
  reading.throwIfProblems();
  return {
    campaign,
    thingTypes: types.thingTypes,
    things: things.things,
    arcs: arcs.arcs,
    links,
    assets: withImages ? assets : [],
    warnings: warningsOf(reading, assets.length, withImages),
  };
}
