// Importing a Markdown vault (an Obsidian vault, or our own `markdown` export) into an import plan.
//
// - Each top-level folder becomes a thing type, each `.md` file in it (at any depth) a thing; files
//   at the top level go to a type "Notes". Our own export (index.md says `format: loreforge-vault`)
//   is read back exactly: index.md is the campaign, `Arcs/` holds the arcs with their narrative
//   fields as `## Hook` … sections, front matter gives slugs, type names, visibility, parents,
//   links and times.
// - YAML front matter (the `yaml` library) gives a name, slug, visibility and times when present.
// - The Markdown itself is parsed by micromark (CommonMark + GFM) into mdast and mapped onto the
//   rich-text vocabulary: headings, paragraphs, quotes, lists, code, dividers, tables, emphasis,
//   strong, strikethrough, inline code, links and images. `> [!secret]` callouts, at any depth,
//   become secret blocks; our export's `<span class="secret">` (a secret table cell or inline
//   element) a secret cell or inline element. Relative links and `[[wikilinks]]` to another file of the vault become mentions; image
//   files of the vault become uploaded images (assets), and links or `![[embeds]]` of them image blocks.
// - A zip of a folder (one top-level folder holding everything) is read as that folder.
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import type { FieldIssue } from '../../domain/errors.js';
import { NAME_MAX_LENGTH } from '../../domain/input.js';
import { RICH_TEXT_MAX_BYTES, validateRichText, type RichText, type RichTextBlock } from '../../domain/rich-text.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../../domain/slugs.js';
import { parseDateTime } from '../../domain/time.js';
import type { ImportBudget } from '../budget.js';
import { MARKDOWN_PARSE_MS, MarkdownParser } from '../markdown.js';
import { arcCycle, importProblems, type ImportPlan } from '../plan.js';
import { OWN_KEYS, structureFromFrontMatter, toPlain, TYPE_FIELDS_KEY } from '../front-matter.js';
import { checkAgainstFields, checkFields } from '../../domain/properties.js';
import { decodeEntryText, readEntry, readEntryText, type OpenedZip, type ZipEntry } from '../zip.js';
import { ARCS_FOLDER, FIELD_BY_TITLE, isIgnored, isImageFile, isMarkdownFile, VAULT_FORMAT } from './layout.js';
import { Converter, plainText, safeDecode, toBlocks, type Target } from './convert.js';

const LOOSE_NOTES_TYPE = 'Notes';
/** A Markdown file larger than this is refused (a thing's text is at most 256 KiB of JSON). */
export const MARKDOWN_MAX_BYTES = 4 * 1024 * 1024;
/** Front matter is looked for in a file's first bytes only (the first pass reads no further). */
const FRONT_MATTER_MAX_BYTES = 64 * 1024;
/**
 * A note whose words (its characters other than ASCII spaces and punctuation, which Markdown may
 * spend on syntax) take more bytes than this cannot fit a thing's text: refused without parsing.
 * Twice the limit leaves room for what Markdown drops (entity names, link definitions).
 */
const NOTE_TEXT_MAX_BYTES = 2 * RICH_TEXT_MAX_BYTES;
/** A vault's rich text in all (JSON, UTF-16 units): as much as a json document may hold (IMPORT_JSON_MAX_BYTES). */
const VAULT_TEXT_MAX_BYTES = 64 * 1024 * 1024;
/** The time all of a vault's Markdown may take to parse, plus a millisecond per KiB of it. */
export const VAULT_PARSE_MS = 60_000;
const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/**
 * A note's front matter, from its first bytes only: the entry is read until its front matter ends
 * (or plainly has none), at most FRONT_MATTER_MAX_BYTES. `bodyAt` is where its Markdown begins.
 */
async function readFrontMatter(opened: OpenedZip, entry: ZipEntry, budget: ImportBudget): Promise<{ meta: Record<string, unknown>; entries: [unknown, unknown][]; bodyAt: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  await readEntry(opened, entry, budget, (chunk) => {
    chunks.push(chunk);
    bytes += chunk.length;
    const head = Buffer.concat(chunks);
    const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    if (head.length >= start + 3 && head.toString('latin1', start, start + 3) !== '---') return false; // no front matter
    if (/\n(?:---|\.\.\.)[ \t]*\r?\n/.test(head.toString('latin1', start + 3))) return false; // its end is in
    return bytes < FRONT_MATTER_MAX_BYTES;
  });
  const all = Buffer.concat(chunks);
  // The head may end inside a UTF-8 sequence: decode up to the last line break seen.
  const lastBreak = all.lastIndexOf(0x0a);
  const complete = bytes >= entry.size ? all : all.subarray(0, lastBreak + 1);
  const text = decodeEntryText(complete, entry.name);
  const match = FRONT_MATTER.exec(text);
  if (!match) return { meta: {}, entries: [], bodyAt: text.startsWith('\uFEFF') ? 1 : 0 };
  return { ...parseFrontMatter(match[1]!, entry.name), bodyAt: match[0].length };
}

/** Front matter as a plain object, and its top-level entries in order (for properties: see front-matter.ts). */
function parseFrontMatter(yaml: string, file: string): { meta: Record<string, unknown>; entries: [unknown, unknown][] } {
  let meta: unknown;
  try {
    meta = parseYaml(yaml, { maxAliasCount: 100, mapAsMap: true });
  } catch (error) {
    throw importProblems(file, [{ path: '', message: `the front matter is not valid YAML (${(error as Error).message.split('\n')[0]})` }]);
  }
  return meta instanceof Map ? { meta: toPlain(meta) as Record<string, unknown>, entries: [...(meta as Map<unknown, unknown>)] } : { meta: {}, entries: [] };
}

/** The bytes of a note's words: its characters other than ASCII whitespace and punctuation. */
function wordBytes(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) count += 1;
    } else count += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3; // a surrogate pair: 4 bytes
  }
  return count;
}


interface NoteFile {
  entry: ZipEntry;
  /** Its path in the vault (the wrapping folder taken off). */
  path: string;
  kind: 'thing' | 'arc';
  key: number;
  meta: Record<string, unknown>;
  /** Its front matter's top-level entries, in order, maps as Maps. */
  entries: [unknown, unknown][];
  /** Where its Markdown begins, after the front matter (read again in the second pass). */
  bodyAt: number;
  name: string;
}

function metaString(meta: Record<string, unknown>, key: string): string | undefined {
  const value = meta[key];
  return typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : undefined;
}

function metaTime(meta: Record<string, unknown>, key: string, fallback: string): string {
  const value = metaString(meta, key);
  return (value === undefined ? undefined : parseDateTime(value)) ?? fallback;
}

/** The keys of another vault's front matter that became its note's name, visibility or times. */
function usedKeys(meta: Record<string, unknown>): Set<string> {
  const used = new Set<string>();
  if (metaString(meta, 'name') !== undefined) used.add('name');
  if (meta.visibility === 'gm') used.add('visibility');
  for (const key of ['createdAt', 'updatedAt']) {
    const value = metaString(meta, key);
    if (value !== undefined && parseDateTime(value) !== undefined) used.add(key.toLowerCase());
  }
  return used;
}

function cleanName(name: string): string {
  const trimmed = name.replaceAll(String.fromCharCode(0), '').trim();
  return [...trimmed].slice(0, NAME_MAX_LENGTH).join('').trim() || 'Untitled';
}

/** Reads the vault in `opened` into a plan; `fallbackName` names the campaign when nothing in the vault does. */
export async function planFromVault(opened: OpenedZip, fallbackName: string, budget: ImportBudget): Promise<ImportPlan> {
  const files = opened.entries.filter((e) => !isIgnored(e.name));
  // A zip of a folder: everything under one top-level folder.
  const tops = new Set(files.map((e) => (e.name.includes('/') ? e.name.split('/')[0]! : '')));
  const wrapper = tops.size === 1 && !tops.has('') ? [...tops][0]! : undefined;
  const inVault = (e: ZipEntry) => (wrapper === undefined ? e.name : e.name.slice(wrapper.length + 1));
  const now = new Date().toISOString();
  const mtime = (e: ZipEntry) => {
    const date = e.entry.getLastModDate();
    return Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1981 ? now : date.toISOString();
  };

  const markdown = files.filter((e) => isMarkdownFile(e.name));
  const images = files.filter((e) => isImageFile(e.name));
  const ignored = files.filter((e) => !isMarkdownFile(e.name) && !isImageFile(e.name) && !e.name.endsWith('/'));

  const indexEntry = markdown.find((e) => inVault(e) === 'index.md');
  const index = indexEntry ? await readFrontMatter(opened, indexEntry, budget) : undefined;
  const ours = index?.meta.format === VAULT_FORMAT;

  const plan: ImportPlan = {
    campaign: {
      slug: undefined,
      name: cleanName(metaString(index?.meta ?? {}, 'name') ?? wrapper ?? fallbackName),
      description: [],
      createdAt: metaTime(index?.meta ?? {}, 'createdAt', now),
      updatedAt: metaTime(index?.meta ?? {}, 'updatedAt', now),
    },
    thingTypes: [],
    things: [],
    arcs: [],
    links: [],
    assets: [],
    warnings: [],
  };
  // Our export lists the types' declared fields in index.md, by type name.
  const declared = new Map<string, unknown>();
  if (ours) {
    const listed = index.meta[TYPE_FIELDS_KEY];
    if (typeof listed === 'object' && listed !== null && !Array.isArray(listed)) for (const [name, fields] of Object.entries(listed)) declared.set(name.toLowerCase(), fields);
  }
  if (ours) {
    const slug = metaString(index.meta, 'slug');
    if (slug !== undefined && isValidSlug(slug)) plan.campaign.slug = slug;
  }

  // Every file's record, so links between them resolve whatever order they are read in.
  const targets = new Map<string, Target>();
  const byBasename = new Map<string, Target[]>();
  const remember = (vaultPath: string, target: Target) => {
    const key = vaultPath.normalize('NFC').toLowerCase();
    targets.set(key, target);
    const base = path.posix.basename(key);
    byBasename.set(base, [...(byBasename.get(base) ?? []), target]);
    if (isMarkdownFile(base)) {
      const bare = base.slice(0, -3);
      byBasename.set(bare, [...(byBasename.get(bare) ?? []), target]);
    }
  };

  const typeKeys = new Map<string, number>();
  const notes: NoteFile[] = [];
  const thingSlugs = new Set<string>();
  const arcSlugs = new Set<string>();
  for (const entry of markdown) {
    if (entry === indexEntry && ours) continue;
    const vaultPath = inVault(entry);
    const folder = vaultPath.includes('/') ? vaultPath.split('/')[0]! : undefined;
    const isArc = ours && folder === ARCS_FOLDER;
    // First pass: front matter only. Each note's Markdown is read, parsed and converted in the second
    // pass, one note at a time, never all held at once.
    budget.check();
    const { meta, entries, bodyAt } = await readFrontMatter(opened, entry, budget);
    const name = cleanName(metaString(meta, 'name') ?? path.posix.basename(vaultPath).slice(0, -3));
    const key = (isArc ? plan.arcs.length : plan.things.length) + 1;
    const note: NoteFile = { entry, path: vaultPath, kind: isArc ? 'arc' : 'thing', key, meta, entries, bodyAt, name };
    notes.push(note);
    remember(vaultPath, { kind: note.kind, key, name });
    const slugs = isArc ? arcSlugs : thingSlugs;
    const wanted = ours ? metaString(meta, 'slug') : undefined;
    const base = wanted !== undefined && isValidSlug(wanted) ? wanted : slugifyName(name) || (isArc ? 'arc' : 'thing');
    const slug = slugs.has(base) ? nextFreeSlug(base, slugs) : base;
    slugs.add(slug);
    const visibility = meta.visibility === 'gm' ? 'gm' : 'all';
    const createdAt = metaTime(meta, 'createdAt', mtime(entry));
    const updatedAt = metaTime(meta, 'updatedAt', mtime(entry));
    // Properties, tags and aliases (their links once every note is known, below).
    const structure = { properties: [], tags: [], aliases: [] };
    if (isArc) {
      plan.arcs.push({ key, slug, name, parentKey: null, visibility, fields: emptyFields(), ...structure, createdAt, updatedAt });
    } else {
      // Our export names the type in the front matter (its folder's name may have lost characters).
      const typeName = cleanName((ours ? metaString(meta, 'type') : undefined) ?? folder ?? LOOSE_NOTES_TYPE);
      let typeKey = typeKeys.get(typeName.toLowerCase());
      if (typeKey === undefined) {
        typeKey = plan.thingTypes.length + 1;
        typeKeys.set(typeName.toLowerCase(), typeKey);
        const given = declared.get(typeName.toLowerCase());
        const issues: FieldIssue[] = [];
        const fields = given === undefined ? [] : checkFields(given, `/${TYPE_FIELDS_KEY}/${typeName}`, issues);
        if (issues.length > 0) throw importProblems(indexEntry!.name, issues);
        plan.thingTypes.push({ key: typeKey, name: typeName, fields, createdAt: createdAt, updatedAt: createdAt });
      }
      plan.things.push({ key, slug, typeKey, name, visibility, description: [], ...structure, createdAt, updatedAt });
    }
  }
  images.forEach((entry, i) => {
    remember(inVault(entry), { kind: 'image', key: i + 1 });
    plan.assets.push({ key: i + 1, label: cleanName(path.posix.basename(inVault(entry)).replace(/\.[^.]+$/, '')), url: undefined, file: entry.name, createdAt: mtime(entry) });
  });

  const resolver = (from: string) => (reference: string, wiki: boolean): Target | undefined => {
    let target = reference.normalize('NFC').toLowerCase();
    if (!wiki) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), target)).normalize('NFC').toLowerCase();
      if (resolved.startsWith('../')) return undefined;
      return targets.get(resolved);
    }
    target = target.replace(/^\/+/, '');
    const exact = targets.get(target) ?? targets.get(`${target}.md`);
    if (exact) return exact;
    const candidates = byBasename.get(path.posix.basename(target));
    return candidates?.length === 1 ? candidates[0] : candidates?.find((c) => c.kind !== 'image');
  };

  // Front matter → properties, tags and aliases. Our own notes keep their own keys (id, slug, type…);
  // another vault's give up only what became the record's name, visibility and times.
  for (const note of notes) {
    const skip = ours ? OWN_KEYS : usedKeys(note.meta);
    const resolve = resolver(note.path);
    const structure = structureFromFrontMatter(note.entries, skip, (reference) => {
      const target = resolve(reference, true);
      return target && target.kind !== 'image' ? { targetType: target.kind, targetId: target.key } : undefined;
    });
    const record = note.kind === 'thing' ? plan.things[note.key - 1]! : plan.arcs[note.key - 1]!;
    Object.assign(record, structure);
    // A value of a key the note's type declares must match its kind, as the API requires.
    if (note.kind === 'thing') {
      const issues: FieldIssue[] = [];
      checkAgainstFields(structure.properties, plan.thingTypes[plan.things[note.key - 1]!.typeKey - 1]!.fields, '/properties', issues);
      if (issues.length > 0) throw importProblems(note.entry.name, issues);
    }
  }

  const labels = new Map<number, string>();
  const thingsByKey = new Map(plan.things.map((t) => [t.key, t]));
  const arcsByKey = new Map(plan.arcs.map((a) => [a.key, a]));
  const parser = new MarkdownParser();
  // All of a vault's Markdown together gets VAULT_PARSE_MS plus a millisecond per KiB: thousands of
  // notes each just within its own allowance would otherwise keep a worker busy for hours.
  let parseMsLeft = VAULT_PARSE_MS + Math.ceil(markdown.reduce((sum, e) => sum + e.size, 0) / 1024);
  const parse = async (text: string, file: string) => {
    if (parseMsLeft <= 0) throw importProblems(file, [{ path: '', message: `the vault's Markdown takes longer than its allowance to read in all` }]);
    const started = performance.now();
    try {
      return await parser.parse(text, file, budget.signal, Math.min(MARKDOWN_PARSE_MS + Math.ceil(text.length / 1024), parseMsLeft));
    } finally {
      parseMsLeft -= performance.now() - started;
    }
  };
  try {
    let textBytes = 0;
    const markdownOf = async (entry: ZipEntry, bodyAt: number): Promise<string> => {
      const body = (await readEntryText(opened, entry, budget)).slice(bodyAt);
      const words = wordBytes(body);
      if (words > NOTE_TEXT_MAX_BYTES) {
        throw importProblems(entry.name, [{ path: '', message: `holds ${words} bytes of text; a thing's text is at most ${RICH_TEXT_MAX_BYTES} bytes of JSON` }]);
      }
      return body;
    };
    for (const note of notes) {
      budget.check();
      const converter = new Converter(resolver(note.path), labels);
      let blocks = toBlocks(converter, await parse(await markdownOf(note.entry, note.bodyAt), note.entry.name), note.entry.name);
      // The title our export (and many notes) start with.
      const first = blocks[0];
      if (first?.type === 'heading-one' && plainText(first) === note.name) blocks = blocks.slice(1);
      const issues: FieldIssue[] = [];
      if (note.kind === 'thing') {
        const thing = thingsByKey.get(note.key)!;
        thing.description = blocks;
        thing.origin = { entry: note.entry.name, path: '/description' };
        issues.push(...validateRichText(blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks, '/description'));
      } else {
        const arc = arcsByKey.get(note.key)!;
        arc.fields = arcFields(blocks);
        arc.origin = { entry: note.entry.name, path: '' };
        for (const field of ARC_TEXT_FIELDS) if (arc.fields[field].length > 0) issues.push(...validateRichText(arc.fields[field], `/${field}`));
        const parent = linkedTargets(note.meta.parent, resolver(note.path)).find((t) => t.kind === 'arc');
        if (parent) arc.parentKey = parent.key;
      }
      if (issues.length > 0) throw importProblems(note.entry.name, issues);
      // The plan holds every note's text until it is written: in all, at most what a json document may hold.
      textBytes += JSON.stringify(blocks).length;
      if (textBytes > VAULT_TEXT_MAX_BYTES) {
        throw importProblems(note.entry.name, [{ path: '', message: `the vault's text passes ${VAULT_TEXT_MAX_BYTES} bytes of rich text in all, the most one import holds` }]);
      }
    }
    if (index && ours) {
      const converter = new Converter(resolver('index.md'), labels);
      let blocks = toBlocks(converter, await parse(await markdownOf(indexEntry!, index.bodyAt), indexEntry!.name), indexEntry!.name);
      if (blocks[0]?.type === 'heading-one' && plainText(blocks[0]) === plan.campaign.name) blocks = blocks.slice(1);
      plan.campaign.description = blocks;
      plan.campaign.origin = { entry: indexEntry!.name, path: '/description' };
      const issues = blocks.length > 0 ? validateRichText(blocks, '/description') : [];
      if (issues.length > 0) throw importProblems(indexEntry!.name, issues);
    }
  } finally {
    await parser.close();
  }
  for (const asset of plan.assets) asset.label = labels.get(asset.key) || asset.label;

  if (ours) {
    // Links, from either side's front matter; each pair once.
    const pairs = new Set<string>();
    for (const note of notes) {
      const listed = linkedTargets(note.kind === 'thing' ? note.meta.arcs : note.meta.things, resolver(note.path));
      for (const other of listed) {
        const [thingKey, arcKey] = note.kind === 'thing' ? [note.key, other.kind === 'arc' ? other.key : 0] : [other.kind === 'thing' ? other.key : 0, note.key];
        if (thingKey === 0 || arcKey === 0 || pairs.has(`${thingKey}:${arcKey}`)) continue;
        pairs.add(`${thingKey}:${arcKey}`);
        plan.links.push({ thingKey, arcKey, createdAt: thingsByKey.get(thingKey)!.createdAt });
      }
    }
    const loop = arcCycle(plan.arcs);
    if (loop !== undefined) throw importProblems(notes.find((n) => n.kind === 'arc' && n.key === plan.arcs[loop]!.key)!.entry.name, [{ path: '/parent', message: 'makes the arcs a loop (an arc cannot be its own ancestor)' }]);
  }
  for (const entry of ignored) plan.warnings.push({ entry: entry.name, problem: 'neither Markdown nor an image: not imported' });
  return plan;
}

function emptyFields(): Record<ArcTextField, RichText> {
  return Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, []])) as unknown as Record<ArcTextField, RichText>;
}

/** An arc file's blocks split at its `## Hook` … headings; text before the first goes to notes. */
function arcFields(blocks: RichTextBlock[]): Record<ArcTextField, RichText> {
  const fields = emptyFields();
  let current: ArcTextField = 'notes';
  const before: RichTextBlock[] = [];
  let seen = false;
  for (const block of blocks) {
    const field = block.type === 'heading-two' ? FIELD_BY_TITLE.get(plainText(block).trim().toLowerCase()) : undefined;
    if (field !== undefined) {
      current = field;
      seen = true;
      continue;
    }
    (seen ? fields[current] : before).push(block);
  }
  if (before.length > 0) fields.notes = [...before, ...fields.notes];
  return fields;
}

/** The targets of front matter values: a link, or a list of them (relative paths or `[[wikilinks]]`). */
function linkedTargets(value: unknown, resolve: (reference: string, wiki: boolean) => Target | undefined): Target[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const found: Target[] = [];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const wiki = /^\[\[([^\]|#]+)/.exec(item);
    const target = wiki ? resolve(wiki[1]!, true) : resolve(safeDecode(item.split('#')[0]!), false);
    if (target) found.push(target);
  }
  return found;
}

