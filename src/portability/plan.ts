// What an import will create, whatever the file was: the campaign's records with the ids of the
// file (or, for a vault, ids given while reading it). Ids are only keys here: the writer gives
// every record a new id and remaps mentions, parents, links and images to them.
//
// `planFromDocument` checks a `loreforge-campaign` document (the json export, an archive's
// campaign.json) as strictly as the API checks a request: every problem is reported, with a JSON
// pointer, before anything is written.
import { ARC_TEXT_FIELDS, type ArcTextField } from '../domain/arc-fields.js';
import { AppError, type FieldIssue } from '../domain/errors.js';
import { InputChecker } from '../domain/input.js';
import { checkAgainstFields, type Property, type TypeField } from '../domain/properties.js';
import type { RichText } from '../domain/rich-text.js';
import { parseDateTime } from '../domain/time.js';
import type { Visibility } from '../db/schema.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ImportBudget } from './budget.js';
import type { JsonDocument } from './json.js';

export interface PlannedType {
  key: number;
  name: string;
  /** The type's declared fields (absent from documents exported before they existed: none). */
  fields: TypeField[];
  createdAt: string;
  updatedAt: string;
}

export interface PlannedThing {
  key: number;
  slug: string;
  typeKey: number;
  name: string;
  visibility: Visibility;
  description: RichText;
  /** Properties with links by the file's ids (remapped when written), tags and aliases. */
  properties: Property[];
  tags: string[];
  aliases: string[];
  createdAt: string;
  updatedAt: string;
  /** Where the record came from, for problems found while writing it: an entry, and a pointer into it. */
  origin?: { entry: string; path: string };
}

export interface PlannedArc {
  key: number;
  slug: string;
  name: string;
  parentKey: number | null;
  visibility: Visibility;
  fields: Record<ArcTextField, RichText>;
  /** As PlannedThing's. */
  properties: Property[];
  tags: string[];
  aliases: string[];
  createdAt: string;
  updatedAt: string;
  /** Where the record came from (see PlannedThing). */
  origin?: { entry: string; path: string };
}

export interface PlannedAsset {
  key: number;
  label: string;
  /** Its URL where it came from: image blocks and text naming it are rewritten to the new URL. */
  url: string | undefined;
  /** The archive entry with its bytes. */
  file: string;
  createdAt: string;
}

export interface ImportPlan {
  campaign: { slug: string | undefined; name: string; description: RichText; createdAt: string; updatedAt: string; defaultVisibility?: Visibility; origin?: { entry: string; path: string } };
  thingTypes: PlannedType[];
  things: PlannedThing[];
  arcs: PlannedArc[];
  links: { thingKey: number; arcKey: number; createdAt: string }[];
  assets: PlannedAsset[];
  /** What the import leaves out or changes, for the report: every one, naming its entry. */
  warnings: ImportWarning[];
}

/** One thing an import left out or changed (CONTRACT "Import from elsewhere"): the entry (a file of the zip, or the document) and what happened to it, in words. */
export interface ImportWarning {
  entry: string;
  problem: string;
}

/** At most this many problems are listed; the first is in the message. */
const MAX_ISSUES = 20;

/** One error naming the entry and every problem found in it. */
export function importProblems(entry: string, issues: FieldIssue[]): AppError {
  const shown = issues.slice(0, MAX_ISSUES);
  const first = shown[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length === 2 ? '' : 's'})` : '';
  return new AppError(
    'invalid_import',
    `${entry}: ${first.path === '' ? '' : `${first.path} `}${first.message}${more}`,
    shown.map((issue) => ({ path: `${entry}#${issue.path}`, message: issue.message })),
  );
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field checks of one document, collecting every problem. */
class DocumentChecker extends InputChecker {
  object(value: unknown, path: string): Json {
    if (isObject(value)) return value;
    this.issues.push({ path, message: 'must be an object' });
    return {};
  }

  array(value: unknown, path: string): unknown[] {
    if (Array.isArray(value)) return value;
    this.issues.push({ path, message: 'must be an array' });
    return [];
  }

  timestamp(value: unknown, path: string): string {
    const parsed = typeof value === 'string' ? parseDateTime(value) : undefined;
    if (parsed === undefined) this.issues.push({ path, message: 'must be an RFC 3339 date-time' });
    return parsed ?? new Date(0).toISOString();
  }

  visibility(value: unknown, path: string): Visibility {
    if (value === undefined || value === 'all' || value === 'gm') return value ?? 'all';
    this.issues.push({ path, message: 'must be "all" or "gm"' });
    return 'all';
  }

  /** A record's id: a positive integer, unique among its kind. */
  key(value: unknown, path: string, seen: Set<number>): number {
    const id = this.id(value, path);
    if (id !== 0 && seen.has(id)) this.issues.push({ path, message: `repeats id ${id}` });
    seen.add(id);
    return id;
  }

  reference(value: unknown, path: string, known: Set<number>, what: string): number {
    const id = this.id(value, path);
    if (id !== 0 && !known.has(id)) this.issues.push({ path, message: `names no ${what} of the file` });
    return id;
  }

  uniqueSlug(value: unknown, path: string, seen: Set<string>): string {
    const slug = this.slug(value, path);
    if (slug !== '' && seen.has(slug)) this.issues.push({ path, message: `repeats the slug "${slug}"` });
    seen.add(slug);
    return slug;
  }

  /** Properties, tags and aliases of a record; each absent (a document from before them) is empty. */
  structureOf(record: Json, path: string): { properties: Property[]; tags: string[]; aliases: string[] } {
    return {
      properties: record.properties === undefined ? [] : this.properties(record.properties, `${path}/properties`),
      tags: record.tags === undefined ? [] : this.tags(record.tags, `${path}/tags`),
      aliases: record.aliases === undefined ? [] : this.aliases(record.aliases, `${path}/aliases`),
    };
  }

  full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }
}

/** Records checked between two turns of the event loop: a large document never holds it for long. */
const RECORDS_PER_TURN = 100;

/**
 * The plan of a `loreforge-campaign` document, or 400 invalid_import naming `entry` and every
 * problem (`withImages`: the document came in an archive, whose `file` entries hold the bytes).
 * The records of its arrays are taken in one at a time, as the reader hands them over (the plan
 * keeps what it needs of each), and checked a hundred at a time, letting other requests run
 * between (and stopping with ImportCancelled once the budget's client is gone); taking in stops
 * once there are problems enough to report.
 */
export async function planFromDocument(source: JsonDocument, entry: string, withImages: boolean, budget?: ImportBudget): Promise<ImportPlan> {
  let checked = 0;
  const pause = async (): Promise<void> => {
    checked += 1;
    if (checked % RECORDS_PER_TURN !== 0) return;
    await yieldToEventLoop();
    budget?.check();
  };
  const check = new DocumentChecker();
  const doc = check.object(source.head, '');
  /** The records of top-level array `key` with their indexes: from the reader, or the value in memory. */
  async function* recordsOf(key: string, fallback?: unknown[]): AsyncGenerator<[number, unknown]> {
    if (check.full()) return;
    let i = 0;
    const records = source.arrays.has(key) ? source.records(key) : check.array(doc[key] ?? fallback, `/${key}`);
    for await (const record of records) {
      if (check.full()) return;
      await pause();
      yield [i, record];
      i += 1;
    }
  }
  if (doc.format !== 'loreforge-campaign') check.issues.push({ path: '/format', message: 'must be "loreforge-campaign"' });
  if (doc.version !== 1) check.issues.push({ path: '/version', message: 'must be 1 (the only version this service reads)' });
  if (check.issues.length > 0) throw importProblems(entry, check.issues);

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

  const typeIds = new Set<number>();
  const typeNames = new Set<string>();
  const typeFields = new Map<number, TypeField[]>();
  const thingTypes: PlannedType[] = [];
  for await (const [i, raw] of recordsOf('thingTypes')) {
    const path = `/thingTypes/${i}`;
    const t = check.object(raw, path);
    const name = check.name(t.name, `${path}/name`);
    if (name !== '' && typeNames.has(name.toLowerCase())) check.issues.push({ path: `${path}/name`, message: `repeats the type name "${name}"` });
    typeNames.add(name.toLowerCase());
    const fields = t.fields === undefined ? [] : check.fields(t.fields, `${path}/fields`);
    const key = check.key(t.id, `${path}/id`, typeIds);
    typeFields.set(key, fields);
    thingTypes.push({ key, name, fields, createdAt: check.timestamp(t.createdAt, `${path}/createdAt`), updatedAt: check.timestamp(t.updatedAt, `${path}/updatedAt`) });
  }

  const thingIds = new Set<number>();
  const thingSlugs = new Set<string>();
  const things: PlannedThing[] = [];
  for await (const [i, raw] of recordsOf('things')) {
    const path = `/things/${i}`;
    const t = check.object(raw, path);
    const typeKey = check.reference(t.typeId, `${path}/typeId`, typeIds, 'thing type');
    const structure = check.structureOf(t, path);
    // A value of a key the type declares matches its kind, as the API requires.
    checkAgainstFields(structure.properties, typeFields.get(typeKey) ?? [], `${path}/properties`, check.issues);
    things.push({
      key: check.key(t.id, `${path}/id`, thingIds),
      slug: check.uniqueSlug(t.slug, `${path}/slug`, thingSlugs),
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

  const arcIds = new Set<number>();
  const seenArcIds = new Set<number>();
  const arcSlugs = new Set<string>();
  const arcs: PlannedArc[] = [];
  // A parent may come later in the file: parents are checked once every arc's id is known.
  const parents: { arc: PlannedArc; value: unknown; path: string }[] = [];
  for await (const [i, raw] of recordsOf('arcs')) {
    if (isObject(raw) && typeof raw.id === 'number') arcIds.add(raw.id);
    const path = `/arcs/${i}`;
    const a = check.object(raw, path);
    const fields = {} as Record<ArcTextField, RichText>;
    for (const field of ARC_TEXT_FIELDS) fields[field] = a[field] === undefined ? [] : check.richText(a[field], `${path}/${field}`);
    const arc: PlannedArc = {
      key: check.key(a.id, `${path}/id`, seenArcIds),
      slug: check.uniqueSlug(a.slug, `${path}/slug`, arcSlugs),
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
    arc.parentKey = check.reference(value, path, arcIds, 'arc');
  }
  if (check.issues.length === 0) {
    const cycle = arcCycle(arcs);
    if (cycle !== undefined) check.issues.push({ path: `/arcs/${cycle}/parentArcId`, message: 'makes the arcs a loop (an arc cannot be its own ancestor)' });
  }

  const linkKeys = new Set<string>();
  const links: ImportPlan['links'] = [];
  for await (const [i, raw] of recordsOf('links')) {
    const path = `/links/${i}`;
    const l = check.object(raw, path);
    const thingKey = check.reference(l.thingId, `${path}/thingId`, thingIds, 'thing');
    const arcKey = check.reference(l.arcId, `${path}/arcId`, seenArcIds, 'arc');
    const pair = `${thingKey}:${arcKey}`;
    if (linkKeys.has(pair)) check.issues.push({ path, message: 'repeats a link' });
    linkKeys.add(pair);
    links.push({ thingKey, arcKey, createdAt: check.timestamp(l.createdAt, `${path}/createdAt`) });
  }

  const assetIds = new Set<number>();
  const files = new Set<string>();
  const assets: PlannedAsset[] = [];
  for await (const [i, raw] of recordsOf('assets', [])) {
    const path = `/assets/${i}`;
    const s = check.object(raw, path);
    const file = typeof s.file === 'string' ? s.file : '';
    if (withImages && file === '') check.issues.push({ path: `${path}/file`, message: 'must name the archive entry with the image’s bytes' });
    else if (withImages && files.has(file)) check.issues.push({ path: `${path}/file`, message: 'names the same entry as another asset' });
    files.add(file);
    assets.push({
      key: check.key(s.id, `${path}/id`, assetIds),
      label: check.name(s.label, `${path}/label`),
      url: typeof s.url === 'string' ? s.url : undefined,
      file,
      createdAt: check.timestamp(s.createdAt, `${path}/createdAt`),
    });
  }
  if (check.issues.length > 0) throw importProblems(entry, check.issues);

  const warnings: ImportWarning[] = [];
  if (!withImages && assets.length > 0) {
    warnings.push({
      entry,
      problem: `${assets.length} uploaded image${assets.length === 1 ? ' was' : 's were'} not imported: a json document carries no image bytes (import the archive for them). Image blocks keep their URLs.`,
    });
  }
  const members = source.arrays.get('members') ?? (Array.isArray(doc.members) ? doc.members.length : 0);
  if (members > 1) warnings.push({ entry, problem: `${members - 1} other member${members === 2 ? ' was' : 's were'} not imported: invite them again.` });
  return {
    campaign: { ...campaign, description: campaign.description ?? [], origin: { entry, path: '/campaign/description' } },
    thingTypes,
    things,
    arcs,
    links,
    assets: withImages ? assets : [],
    warnings,
  };
}

/** The index of an arc on a parent loop, if the arcs have one. */
export function arcCycle(arcs: PlannedArc[]): number | undefined {
  const parentOf = new Map(arcs.map((a) => [a.key, a.parentKey]));
  const index = new Map(arcs.map((a, i) => [a.key, i]));
  const settled = new Set<number>();
  for (const arc of arcs) {
    const path = new Set<number>();
    let current: number | null | undefined = arc.key;
    while (current !== null && current !== undefined && !settled.has(current)) {
      if (path.has(current)) return index.get(current);
      path.add(current);
      current = parentOf.get(current);
    }
    for (const key of path) settled.add(key);
  }
  return undefined;
}
