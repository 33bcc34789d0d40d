// Writing a campaign as a Markdown vault (the `markdown` export): a zip that opens in Obsidian, and
// that vault/read.ts reads back exactly. index.md holds the campaign, each thing is
// `<Type folder>/<slug>.md` and each arc `Arcs/<slug>.md` (the layout of layout.ts), with YAML
// front matter; mentions become relative links and record links in properties wikilinks from the
// vault's root, so every link resolves to a file inside the vault.
//
// Links need every record's name, slug and folder up front: those (small) are read first; then
// each file is written only when the zip comes to it, from a page of records loaded at that moment.
import path from 'node:path';
import { Readable } from 'node:stream';
import { stringify as toYaml } from 'yaml';
import type { ZipFile } from 'yazl';
import type { Db } from '../../db/database.js';
import { arcLinksOfThings, arcNamePages, arcsByIds, assetPages, thingLinksOfArcs, thingNamePages, thingsByIds } from '../../db/repositories/campaign-export.js';
import { listThingTypes } from '../../db/repositories/thing-types.js';
import type { ArcRow, CampaignRow, ThingRow } from '../../db/schema.js';
import { ARC_TEXT_FIELDS } from '../../domain/arc-fields.js';
import { parseStoredFields, type TypeField } from '../../domain/properties.js';
import { parseStoredRichText } from '../../domain/rich-text.js';
import type { ImageHost } from '../../images/image-host.js';
import { renderRichText, type AssetTarget, type MentionTarget, type RenderContext } from '../../render/index.js';
import { addImages, zipStream } from '../archive.js';
import { structureFrontMatter, TYPE_FIELDS_KEY, wikilink } from '../front-matter.js';
import { assetFile, structureOf } from '../stored.js';
import { ARCS_FOLDER, FIELD_TITLES, VAULT_FORMAT } from './layout.js';

/** Files whose records are loaded at once. */
const PAGE = 500;

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
  for (const type of await listThingTypes(db, campaignId)) {
    const fields = parseStoredFields(type.fields);
    if (fields.length > 0) typeFields.set(type.name, fields);
    let folder = safeName(type.name);
    if (taken.has(folder.toLowerCase())) folder = `${folder} (${type.id})`;
    taken.add(folder.toLowerCase());
    typeFolders.set(type.id, folder);
    typeNames.set(type.id, type.name);
  }
  const names: VaultNames = { typeFolders, typeNames, typeFields, things: new Map(), thingsBySlug: new Map(), arcs: new Map(), arcsBySlug: new Map(), assets: new Map(), assetsByUrl: new Map() };
  for await (const rows of thingNamePages(db, campaignId)) {
    for (const t of rows) {
      const target = { id: t.id, slug: t.slug, name: t.name, folder: typeFolders.get(t.type_id)! };
      names.things.set(t.id, target);
      names.thingsBySlug.set(t.slug, target);
    }
  }
  for await (const rows of arcNamePages(db, campaignId)) {
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

/** A heading of a record's name that Markdown does not take for a deeper one. */
function title(name: string): string {
  return `# ${name.replace(/^#/, '\\#')}\n\n`;
}

function thingMarkdown(thing: ThingRow, arcSlugs: string[], names: VaultNames, campaignSlug: string): string {
  const file = thingPath(names, thing.id);
  const meta: Record<string, unknown> = { id: thing.id, slug: thing.slug, name: thing.name, type: names.typeNames.get(thing.type_id) };
  if (thing.visibility === 'gm') meta.visibility = 'gm';
  if (arcSlugs.length > 0) meta.arcs = arcSlugs.map((slug) => linkTo(file, arcPath(slug)));
  meta.createdAt = thing.created_at;
  meta.updatedAt = thing.updated_at;
  return `${frontMatter(meta, structureMeta(thing, names))}${title(thing.name)}${renderFor(file, names, campaignSlug)(thing.description)}`;
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
  return `${frontMatter(meta, structureMeta(arc, names))}${title(arc.name)}${sections}`;
}

function indexMarkdown(campaign: CampaignRow, names: VaultNames): string {
  // The types' declared fields, by type name (a map, whatever the names).
  const fields: [string, unknown][] = names.typeFields.size > 0 ? [[TYPE_FIELDS_KEY, new Map([...names.typeFields].map(([name, list]) => [name, list.map((field) => ({ ...field }))]))]] : [];
  const meta = frontMatter({ format: VAULT_FORMAT, id: campaign.id, slug: campaign.slug, name: campaign.name, createdAt: campaign.created_at, updatedAt: campaign.updated_at }, fields);
  return `${meta}${title(campaign.name)}${renderFor('index.md', names, campaign.slug)(campaign.description)}`;
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
  return zipStream(async (zip) => {
    const names = await vaultNames(db, campaign.id);
    zip.addBuffer(Buffer.from(indexMarkdown(campaign, names), 'utf8'), 'index.md');
    const thingEntries = [...names.things.values()].map((t) => ({ id: t.id, file: `${t.folder}/${t.slug}.md` }));
    addPaged(zip, thingEntries, async (ids) => {
      const rows = await thingsByIds(db, campaign.id, ids);
      const links = await arcLinksOfThings(db, campaign.id, ids);
      return new Map(rows.map((row) => [row.id, thingMarkdown(row, links.filter((l) => l.thing_id === row.id).map((l) => names.arcs.get(l.arc_id)!.slug), names, campaign.slug)]));
    });
    const arcEntries = [...names.arcs.values()].map((a) => ({ id: a.id, file: arcPath(a.slug) }));
    addPaged(zip, arcEntries, async (ids) => {
      const rows = await arcsByIds(db, campaign.id, ids);
      const links = await thingLinksOfArcs(db, campaign.id, ids);
      return new Map(rows.map((row) => [row.id, arcMarkdown(row, links.filter((l) => l.arc_id === row.id).map((l) => l.thing_id), names, campaign.slug)]));
    });
    await addImages(zip, db, campaign.id, imageHost);
  });
}
