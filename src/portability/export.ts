// Exporting a campaign (CONTRACT "Portability"): `json` (one document with every record, id, slug,
// field and timestamp), `archive` (a zip of that document as campaign.json plus every uploaded
// image's bytes under images/) and `markdown` (a zip that opens as an Obsidian vault).
//
// Everything is streamed: records are read in pages by id and written as they come; the zip is
// written by yazl as its entries' streams are read, each entry opened only when its turn comes. What
// is held whole is small: the names, slugs and types of the records (to write links between them)
// and one page of records at a time.
import path from 'node:path';
import { Readable } from 'node:stream';
import { stringify as toYaml } from 'yaml';
import { ZipFile } from 'yazl';
import type { Db } from '../db/database.js';
import type { ArcRow, AssetRow, CampaignRow, ThingRow } from '../db/schema.js';
import { ARC_TEXT_FIELDS } from '../domain/arc-fields.js';
import { parseStoredFields, parseStoredLabels, parseStoredProperties, type TypeField } from '../domain/properties.js';
import { emptyRichText, parseStoredRichText } from '../domain/rich-text.js';
import type { ImageHost } from '../images/image-host.js';
import { renderRichText, type AssetTarget, type MentionTarget, type RenderContext } from '../render/index.js';
import { structureFrontMatter, TYPE_FIELDS_KEY, wikilink } from './front-matter.js';
import { ARCS_FOLDER, FIELD_TITLES, VAULT_FORMAT } from './vault/layout.js';

export const EXPORT_FORMATS = ['archive', 'json', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const PAGE = 500;
const EMPTY_RICH_TEXT_JSON = JSON.stringify(emptyRichText());

function richTextJson(stored: string | null): string {
  return stored === null || stored === 'null' ? EMPTY_RICH_TEXT_JSON : stored;
}

/** Reads a table of the campaign in pages by id: bounded memory whatever its size. */
async function* pages<R extends { id: number }>(read: (after: number) => Promise<R[]>): AsyncGenerator<R[]> {
  for (let after = 0; ; ) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}

function thingPages(db: Db, campaignId: number) {
  return pages((after) => db.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(PAGE).execute());
}

function arcPages(db: Db, campaignId: number) {
  return pages((after) => db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(PAGE).execute());
}

function assetPages(db: Db, campaignId: number) {
  return pages((after) => db.selectFrom('assets').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(PAGE).execute());
}

async function* linkPages(db: Db, campaignId: number): AsyncGenerator<{ thing_id: number; arc_id: number; created_at: string }[]> {
  for (let after = { arc: 0, thing: 0 }; ; ) {
    const cursor = after;
    const rows = await db
      .selectFrom('arc_things')
      .select(['thing_id', 'arc_id', 'created_at'])
      .where('campaign_id', '=', campaignId)
      .where((eb) => eb.or([eb('arc_id', '>', cursor.arc), eb.and([eb('arc_id', '=', cursor.arc), eb('thing_id', '>', cursor.thing)])]))
      .orderBy('arc_id')
      .orderBy('thing_id')
      .limit(PAGE)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE) return;
    const last = rows.at(-1)!;
    after = { arc: last.arc_id, thing: last.thing_id };
  }
}

/** Where an asset's bytes go in an archive or a vault. */
export function assetFile(asset: Pick<AssetRow, 'image_id' | 'storage_key'>): string {
  return `images/${asset.image_id}${path.extname(asset.storage_key)}`;
}

const str = JSON.stringify;

/** A record's properties (GM-only ones too: an export is the owner's or a game master's), tags and aliases. */
function structureOf(row: Pick<ThingRow, 'properties' | 'tags' | 'aliases'>) {
  return { properties: parseStoredProperties(row.properties), tags: parseStoredLabels(row.tags), aliases: parseStoredLabels(row.aliases) };
}

/** The `json` export, as text chunks in order. */
export async function* campaignJson(db: Db, campaign: CampaignRow, exportedAt: string): AsyncGenerator<string> {
  yield `{"format":"loreforge-campaign","version":1,"exportedAt":${str(exportedAt)},\n"campaign":${str({
    id: campaign.id,
    slug: campaign.slug,
    name: campaign.name,
    userId: campaign.user_id,
    defaultVisibility: campaign.default_visibility,
    createdAt: campaign.created_at,
    updatedAt: campaign.updated_at,
  }).slice(0, -1)},"description":${richTextJson(campaign.description)}},\n`;

  const types = await db.selectFrom('thing_types').selectAll().where('campaign_id', '=', campaign.id).orderBy('id').execute();
  yield `"thingTypes":[${types.map((t) => `\n${str({ id: t.id, name: t.name, fields: parseStoredFields(t.fields), createdAt: t.created_at, updatedAt: t.updated_at })}`).join(',')}],\n"things":[`;

  let first = true;
  for await (const rows of thingPages(db, campaign.id)) {
    yield rows
      .map((t) => {
        const head = str({ id: t.id, slug: t.slug, typeId: t.type_id, name: t.name, visibility: t.visibility, ...structureOf(t), createdAt: t.created_at, updatedAt: t.updated_at }).slice(0, -1);
        const line = `${first ? '' : ','}\n${head},"description":${richTextJson(t.description)}}`;
        first = false;
        return line;
      })
      .join('');
  }
  yield '],\n"arcs":[';
  first = true;
  for await (const rows of arcPages(db, campaign.id)) {
    yield rows
      .map((a) => {
        const head = str({ id: a.id, slug: a.slug, name: a.name, parentArcId: a.parent_arc_id, visibility: a.visibility, ...structureOf(a), createdAt: a.created_at, updatedAt: a.updated_at }).slice(0, -1);
        const fields = ARC_TEXT_FIELDS.map((field) => `,${str(field)}:${richTextJson(a[field])}`).join('');
        const line = `${first ? '' : ','}\n${head}${fields}}`;
        first = false;
        return line;
      })
      .join('');
  }
  yield '],\n"links":[';
  first = true;
  for await (const rows of linkPages(db, campaign.id)) {
    yield rows
      .map((l) => {
        const line = `${first ? '' : ','}\n${str({ thingId: l.thing_id, arcId: l.arc_id, createdAt: l.created_at })}`;
        first = false;
        return line;
      })
      .join('');
  }
  yield '],\n"assets":[';
  first = true;
  for await (const rows of assetPages(db, campaign.id)) {
    yield rows
      .map((s) => {
        const line = `${first ? '' : ','}\n${str({ id: s.id, imageId: s.image_id, label: s.label, url: s.url, contentType: s.content_type, byteSize: s.byte_size, file: assetFile(s), createdAt: s.created_at })}`;
        first = false;
        return line;
      })
      .join('');
  }
  const members = await db
    .selectFrom('campaign_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.name', 'u.email', 'm.role', 'm.joined_at'])
    .where('m.campaign_id', '=', campaign.id)
    .orderBy('m.joined_at')
    .orderBy('m.user_id')
    .execute();
  yield `],\n"members":[${members.map((m) => `\n${str({ userId: m.user_id, name: m.name, email: m.email, role: m.role, joinedAt: m.joined_at })}`).join(',')}]}\n`;
}

/** Adds every uploaded image's bytes to the zip, each read only when the zip comes to it. */
async function addImages(zip: ZipFile, db: Db, campaignId: number, imageHost: ImageHost): Promise<void> {
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

/** The `archive` export: campaign.json and images/, as a zip stream. */
export function campaignArchive(db: Db, campaign: CampaignRow, imageHost: ImageHost, exportedAt: string): Readable {
  const zip = new ZipFile();
  zip.addReadStreamLazy('campaign.json', (callback) => callback(null, Readable.from(campaignJson(db, campaign, exportedAt))));
  addImages(zip, db, campaign.id, imageHost).then(
    () => zip.end(),
    (error: unknown) => outputOf(zip).destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return outputOf(zip);
}

/** yazl's output, a Node stream (its types say only ReadableStream). */
function outputOf(zip: ZipFile): Readable {
  return zip.outputStream as unknown as Readable;
}

// ---- The Markdown vault ----

/** A file or folder name that every file system takes: no separators, no reserved characters, no dots alone. */
export function safeName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|#^[\]]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 120)
    .trim();
  return cleaned === '' ? '_' : cleaned;
}

interface VaultNames {
  /** Folder of each thing type, by type id. */
  typeFolders: Map<number, string>;
  /** The name of each thing type, by type id (a folder's name may have lost characters). */
  typeNames: Map<number, string>;
  /** The declared fields of each type that has some, by type name. */
  typeFields: Map<string, TypeField[]>;
  things: Map<number, MentionTarget & { folder: string }>;
  thingsBySlug: Map<string, MentionTarget>;
  arcs: Map<number, MentionTarget>;
  arcsBySlug: Map<string, MentionTarget>;
  assets: Map<number, AssetTarget & { file: string }>;
  assetsByUrl: Map<string, AssetTarget & { file: string }>;
}


/** The names, slugs and folders of every record: what links between files need. */
async function vaultNames(db: Db, campaignId: number): Promise<VaultNames> {
  const taken = new Set([ARCS_FOLDER.toLowerCase(), 'images']);
  const typeFolders = new Map<number, string>();
  const typeNames = new Map<number, string>();
  const typeFields = new Map<string, TypeField[]>();
  for (const type of await db.selectFrom('thing_types').select(['id', 'name', 'fields']).where('campaign_id', '=', campaignId).orderBy('id').execute()) {
    const fields = parseStoredFields(type.fields);
    if (fields.length > 0) typeFields.set(type.name, fields);
    let folder = safeName(type.name);
    if (taken.has(folder.toLowerCase())) folder = `${folder} (${type.id})`;
    taken.add(folder.toLowerCase());
    typeFolders.set(type.id, folder);
    typeNames.set(type.id, type.name);
  }
  const names: VaultNames = { typeFolders, typeNames, typeFields, things: new Map(), thingsBySlug: new Map(), arcs: new Map(), arcsBySlug: new Map(), assets: new Map(), assetsByUrl: new Map() };
  for await (const rows of pages((after) => db.selectFrom('things').select(['id', 'slug', 'name', 'type_id']).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(PAGE).execute())) {
    for (const t of rows) {
      const target = { id: t.id, slug: t.slug, name: t.name, folder: typeFolders.get(t.type_id)! };
      names.things.set(t.id, target);
      names.thingsBySlug.set(t.slug, target);
    }
  }
  for await (const rows of pages((after) => db.selectFrom('arcs').select(['id', 'slug', 'name']).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(PAGE).execute())) {
    for (const a of rows) {
      names.arcs.set(a.id, a);
      names.arcsBySlug.set(a.slug, a);
    }
  }
  for await (const rows of assetPages(db, campaignId)) {
    for (const s of rows) {
      const target = { url: s.url, label: s.label, file: assetFile(s) };
      names.assets.set(s.id, target);
      names.assetsByUrl.set(s.url, target);
    }
  }
  return names;
}

/** A vault path as a link destination: each segment percent-encoded, so spaces and the rest survive. */
function linkTo(from: string, to: string): string {
  const relative = path.posix.relative(path.posix.dirname(from), to);
  return relative.split('/').map((segment) => (segment === '..' ? segment : encodeURIComponent(segment))).join('/');
}

function thingPath(names: VaultNames, id: number): string {
  const thing = names.things.get(id)!;
  return `${thing.folder}/${thing.slug}.md`;
}

function arcPath(slug: string): string {
  return `${ARCS_FOLDER}/${slug}.md`;
}

function renderFor(file: string, names: VaultNames, campaignSlug: string) {
  const context: RenderContext = {
    campaignSlug,
    showSecrets: true,
    things: { byId: names.things, bySlug: names.thingsBySlug },
    arcs: { byId: names.arcs, bySlug: names.arcsBySlug },
    assets: { byId: names.assets, byUrl: names.assetsByUrl },
    links: {
      mention: (kind, target) => linkTo(file, kind === 'thing' ? thingPath(names, target.id) : arcPath(target.slug)),
      asset: (asset) => linkTo(file, (asset as AssetTarget & { file: string }).file),
    },
  };
  return (stored: string | null) => renderRichText(parseStoredRichText(stored), 'markdown', context);
}

/** Front matter; `extra` entries (a record's properties, whatever their keys) come after `data`'s. */
function frontMatter(data: Record<string, unknown>, extra: [string, unknown][] = []): string {
  return `---\n${toYaml(new Map([...Object.entries(data), ...extra]), { lineWidth: 0 })}---\n\n`;
}

/** A record's properties, tags and aliases as front matter, links as wikilinks from the vault's root. */
function structureMeta(row: Pick<ThingRow, 'properties' | 'tags' | 'aliases'>, names: VaultNames): [string, unknown][] {
  return structureFrontMatter(structureOf(row), (link) => {
    if (link.targetType === 'thing') {
      const thing = names.things.get(link.targetId);
      return thing ? wikilink(thingPath(names, thing.id).slice(0, -3), thing.name) : undefined;
    }
    const arc = names.arcs.get(link.targetId);
    return arc ? wikilink(arcPath(arc.slug).slice(0, -3), arc.name) : undefined;
  });
}

function thingMarkdown(thing: ThingRow, arcSlugs: string[], names: VaultNames, campaignSlug: string): string {
  const file = thingPath(names, thing.id);
  const meta: Record<string, unknown> = { id: thing.id, slug: thing.slug, name: thing.name, type: names.typeNames.get(thing.type_id) };
  if (thing.visibility === 'gm') meta.visibility = 'gm';
  if (arcSlugs.length > 0) meta.arcs = arcSlugs.map((slug) => linkTo(file, arcPath(slug)));
  meta.createdAt = thing.created_at;
  meta.updatedAt = thing.updated_at;
  return `${frontMatter(meta, structureMeta(thing, names))}# ${thing.name.replace(/^#/, '\\#')}\n\n${renderFor(file, names, campaignSlug)(thing.description)}`;
}

function arcMarkdown(arc: ArcRow, thingIds: number[], names: VaultNames, campaignSlug: string): string {
  const file = arcPath(arc.slug);
  const meta: Record<string, unknown> = { id: arc.id, slug: arc.slug, name: arc.name };
  const parent = arc.parent_arc_id === null ? undefined : names.arcs.get(arc.parent_arc_id);
  if (parent) meta.parent = linkTo(file, arcPath(parent.slug));
  if (thingIds.length > 0) meta.things = thingIds.map((id) => linkTo(file, thingPath(names, id)));
  if (arc.visibility === 'gm') meta.visibility = 'gm';
  meta.createdAt = arc.created_at;
  meta.updatedAt = arc.updated_at;
  const render = renderFor(file, names, campaignSlug);
  const sections = ARC_TEXT_FIELDS.map((field) => `## ${FIELD_TITLES[field]}\n\n${render(arc[field])}`).join('\n');
  return `${frontMatter(meta, structureMeta(arc, names))}# ${arc.name.replace(/^#/, '\\#')}\n\n${sections}`;
}

/**
 * Files of one kind added in order, each written only when the zip comes to it, from a page of
 * records loaded at that moment: one page in memory at a time.
 */
function addPaged(zip: ZipFile, entries: { id: number; file: string }[], loadPage: (ids: number[]) => Promise<Map<number, string>>): void {
  // The page being read or held: its promise, so entries asking at once share one load.
  let current: { start: number; texts: Promise<Map<number, string>> } | undefined;
  entries.forEach((entry, index) => {
    const start = index - (index % PAGE);
    zip.addReadStreamLazy(entry.file, (callback) => {
      if (current?.start !== start) current = { start, texts: loadPage(entries.slice(start, start + PAGE).map((e) => e.id)) };
      current.texts.then(
        (texts) => {
          callback(null, Readable.from([Buffer.from(texts.get(entry.id) ?? '', 'utf8')]));
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null as never),
      );
    });
  });
}

/** The `markdown` export: an Obsidian vault as a zip stream. */
export function campaignVault(db: Db, campaign: CampaignRow, imageHost: ImageHost): Readable {
  const zip = new ZipFile();
  const build = async () => {
    const names = await vaultNames(db, campaign.id);
    // The types' declared fields, by type name (a map, whatever the names).
    const fields: [string, unknown][] = names.typeFields.size > 0 ? [[TYPE_FIELDS_KEY, new Map([...names.typeFields].map(([name, list]) => [name, list.map((field) => ({ ...field }))]))]] : [];
    const index = frontMatter({ format: VAULT_FORMAT, id: campaign.id, slug: campaign.slug, name: campaign.name, createdAt: campaign.created_at, updatedAt: campaign.updated_at }, fields);
    zip.addBuffer(Buffer.from(`${index}# ${campaign.name.replace(/^#/, '\\#')}\n\n${renderFor('index.md', names, campaign.slug)(campaign.description)}`, 'utf8'), 'index.md');

    const thingEntries = [...names.things.values()].map((t) => ({ id: t.id, file: `${t.folder}/${t.slug}.md` }));
    addPaged(zip, thingEntries, async (ids) => {
      const rows = await db.selectFrom('things').selectAll().where('campaign_id', '=', campaign.id).where('id', 'in', ids).execute();
      const links = await db.selectFrom('arc_things').select(['thing_id', 'arc_id']).where('campaign_id', '=', campaign.id).where('thing_id', 'in', ids).orderBy('created_at').orderBy('arc_id').execute();
      return new Map(rows.map((row) => [row.id, thingMarkdown(row, links.filter((l) => l.thing_id === row.id).map((l) => names.arcs.get(l.arc_id)!.slug), names, campaign.slug)]));
    });
    const arcEntries = [...names.arcs.values()].map((a) => ({ id: a.id, file: arcPath(a.slug) }));
    addPaged(zip, arcEntries, async (ids) => {
      const rows = await db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaign.id).where('id', 'in', ids).execute();
      const links = await db.selectFrom('arc_things').select(['thing_id', 'arc_id']).where('campaign_id', '=', campaign.id).where('arc_id', 'in', ids).orderBy('created_at').orderBy('thing_id').execute();
      return new Map(rows.map((row) => [row.id, arcMarkdown(row, links.filter((l) => l.arc_id === row.id).map((l) => l.thing_id), names, campaign.slug)]));
    });
    await addImages(zip, db, campaign.id, imageHost);
    zip.end();
  };
  build().catch((error: unknown) => outputOf(zip).destroy(error instanceof Error ? error : new Error(String(error))));
  return outputOf(zip);
}
