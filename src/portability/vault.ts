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
import type { Nodes as MdNode, PhrasingContent, Root, RootContent } from 'mdast';
import { parse as parseYaml } from 'yaml';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../domain/arc-fields.js';
import type { FieldIssue } from '../domain/errors.js';
import { NAME_MAX_LENGTH } from '../domain/input.js';
import { RICH_TEXT_MAX_BYTES, RICH_TEXT_MAX_DEPTH, validateRichText, type RichText, type RichTextBlock, type RichTextNode } from '../domain/rich-text.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../domain/slugs.js';
import { parseDateTime } from '../domain/time.js';
import { FORMAT_BY_EXT } from '../images/sniff.js';
import type { ImportBudget } from './budget.js';
import { MARKDOWN_PARSE_MS, MarkdownParser } from './markdown.js';
import { arcCycle, importProblems, type ImportPlan } from './plan.js';
import { OWN_KEYS, structureFromFrontMatter, toPlain, TYPE_FIELDS_KEY } from './front-matter.js';
import { checkAgainstFields, checkFields } from '../domain/properties.js';
import { decodeEntryText, readEntry, readEntryText, type OpenedZip, type ZipEntry } from './zip.js';
import { HEADING_TYPES } from '../vocabulary/index.js';

/** The marker our own export writes in index.md's front matter. */
export const VAULT_FORMAT = 'loreforge-vault';
export const ARCS_FOLDER = 'Arcs';
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

export const FIELD_TITLES: Record<ArcTextField, string> = {
  hook: 'Hook',
  protagonist: 'Protagonist',
  antagonist: 'Antagonist',
  problem: 'Problem',
  key: 'Key',
  outcome: 'Outcome',
  notes: 'Notes',
};
const FIELD_BY_TITLE = new Map(ARC_TEXT_FIELDS.map((field) => [FIELD_TITLES[field].toLowerCase(), field]));


export function isImageFile(name: string): boolean {
  const ext = path.posix.extname(name).slice(1).toLowerCase();
  return FORMAT_BY_EXT.has(ext === 'jpeg' ? 'jpg' : ext);
}

export function isMarkdownFile(name: string): boolean {
  return name.toLowerCase().endsWith('.md');
}

/** Folders a vault keeps for its app (`.obsidian/`, `.trash/`), and macOS's zip residue. */
function isIgnored(name: string): boolean {
  return name.split('/').some((segment) => segment.startsWith('.') || segment === '__MACOSX');
}

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

type Target = { kind: 'thing' | 'arc'; key: number; name: string } | { kind: 'image'; key: number };

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
  const ignored = files.length - markdown.length - images.length;

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
  if (ignored > 0) plan.warnings.push(`${ignored} file${ignored === 1 ? ' was' : 's were'} neither Markdown nor an image, and ${ignored === 1 ? 'was' : 'were'} not imported.`);
  return plan;
}

function toBlocks(converter: Converter, tree: Root, file: string): RichTextBlock[] {
  try {
    return converter.blocks(tree.children, 1, true);
  } catch (error) {
    // Inline content (emphasis in emphasis…) nested thousands deep.
    if (error instanceof RangeError) throw importProblems(file, [{ path: '', message: 'the Markdown nests too deeply to read' }]);
    throw error;
  }
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

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function plainText(node: RichTextNode): string {
  if (typeof (node as { text?: unknown }).text === 'string') return (node as { text: string }).text;
  return ((node as RichTextBlock).children ?? []).map(plainText).join('');
}

interface Marks {
  bold?: true;
  italic?: true;
  strikethrough?: true;
  code?: true;
}

// `[[target#heading|label]]`, with `!` before it for an embed.
const WIKILINK = /(!?)\[\[([^[\]|#^\n]*)(?:[#^][^[\]|\n]*)?(?:\|([^[\]\n]*))?\]\]/g;
const SECRET_CALLOUT = /^\[!secret\][+-]?[ \t]*/i;
const SECRET_SPAN_OPEN = '<span class="secret">';
const SECRET_SPAN_CLOSE = '</span>';

/** The content of phrasing that is exactly one secret span (our export's secret cell), else undefined. */
function secretSpanContent(nodes: readonly PhrasingContent[]): PhrasingContent[] | undefined {
  const kept = nodes.filter((n) => !(n.type === 'text' && n.value.trim() === ''));
  const first = kept[0];
  const last = kept.at(-1);
  if (kept.length < 2 || first?.type !== 'html' || first.value !== SECRET_SPAN_OPEN || last?.type !== 'html' || last.value !== SECRET_SPAN_CLOSE) return undefined;
  const inner = kept.slice(1, -1);
  return inner.some((n) => n.type === 'html' && (n.value === SECRET_SPAN_OPEN || n.value === SECRET_SPAN_CLOSE)) ? undefined : inner;
}

/** mdast to rich text, with links resolved against the vault. */
class Converter {
  constructor(
    private readonly resolve: (reference: string, wiki: boolean) => Target | undefined,
    /** The first alt text seen for each image: its label. */
    private readonly labels: Map<number, string>,
  ) {}

  blocks(nodes: readonly RootContent[], depth: number, top: boolean): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const made = this.block(node, depth, top);
      // Our export's caption line under an image: `*caption*` alone in a paragraph.
      const last = made.at(-1);
      const next = nodes[i + 1];
      if (last?.type === 'image' && next?.type === 'paragraph' && next.children.length === 1 && next.children[0]!.type === 'emphasis') {
        const caption = mdText(next.children[0]);
        if (caption !== last.alt) last.caption = caption;
        i++;
      }
      out.push(...made);
    }
    return out;
  }

  private block(node: RootContent, depth: number, top: boolean): RichTextBlock[] {
    // Deeper than rich text may nest: what is inside is kept as paragraphs of its text.
    if (depth > RICH_TEXT_MAX_DEPTH - 2 && 'children' in node && node.type !== 'paragraph' && node.type !== 'heading') {
      return [{ type: 'paragraph', children: [{ text: mdText(node) }] }];
    }
    switch (node.type) {
      case 'paragraph':
        return this.paragraph(node.children, 'paragraph');
      case 'heading':
        return [{ type: HEADING_TYPES[node.depth - 1]!, children: this.leaves(node.children) }];
      case 'blockquote': {
        const [first, ...rest] = node.children;
        if (first?.type === 'paragraph' && first.children[0]?.type === 'text' && SECRET_CALLOUT.test(first.children[0].value)) {
          // `> [!secret]`, at any depth (a list item, a quote): each block inside is a secret block.
          const head = first.children[0];
          const remainder = head.value.replace(SECRET_CALLOUT, '').replace(/^\r?\n/, '');
          const firstChildren = remainder === '' ? first.children.slice(1) : [{ ...head, value: remainder }, ...first.children.slice(1)];
          const inner = firstChildren.length > 0 ? [{ ...first, children: firstChildren }, ...rest] : rest;
          return this.blocks(inner as RootContent[], depth, false).map((block) => ({ ...block, isSecret: true }));
        }
        return [{ type: 'block-quote', children: nonEmpty(this.blocks(node.children, depth + 1, false)) }];
      }
      case 'list':
        return [
          {
            type: node.ordered ? 'numbered-list' : 'bulleted-list',
            children: node.children.map((item) => {
              const only = item.children.length === 1 && item.children[0]!.type === 'paragraph' ? item.children[0] : undefined;
              const children = only ? this.leaves(only.children) : nonEmpty(this.blocks(item.children, depth + 2, false));
              return { type: 'list-item', children: children.length === 0 ? [{ text: '' }] : children };
            }),
          },
        ];
      case 'code':
        return [{ type: 'code-block', children: [{ text: node.value }] }];
      case 'thematicBreak':
        return [{ type: 'divider', children: [{ text: '' }] }];
      case 'table':
        return [
          {
            type: 'table',
            children: node.children.map((row) => ({
              type: 'table-row',
              children: row.children.map((cell) => {
                // Our export's secret cell: its whole content in one `<span class="secret">`.
                const inner = secretSpanContent(cell.children);
                return inner ? { type: 'table-cell', isSecret: true, children: withText(this.leaves(inner)) } : { type: 'table-cell', children: withText(this.leaves(cell.children)) };
              }),
            })),
          },
        ];
      case 'html':
        return node.value.trim() === '' ? [] : [{ type: 'paragraph', children: [{ text: node.value }] }];
      case 'definition':
      case 'yaml':
        return [];
      case 'footnoteDefinition':
      case 'listItem':
        return this.blocks(node.children, depth, top);
      case 'tableRow':
        return this.blocks(node.children, depth, top);
      case 'tableCell':
        return this.paragraph(node.children, 'paragraph');
      // Phrasing where a block belongs (mdast allows it in few places): a paragraph of it.
      case 'text':
      case 'emphasis':
      case 'strong':
      case 'delete':
      case 'inlineCode':
      case 'break':
      case 'link':
      case 'image':
      case 'linkReference':
      case 'imageReference':
      case 'footnoteReference':
        return this.paragraph([node], 'paragraph');
    }
  }

  /** A paragraph's inline content; images in it come out as image blocks around the text. */
  private paragraph(children: PhrasingContent[], type: string): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    let run: RichTextNode[] = [];
    const flush = () => {
      if (run.some((n) => !('text' in n) || (n as { text: string }).text.trim() !== '')) out.push({ type, children: withText(run) });
      run = [];
    };
    for (const item of this.inline(children, {})) {
      if ('type' in item && item.type === 'image') {
        flush();
        out.push(item as RichTextBlock);
      } else run.push(item);
    }
    flush();
    return out;
  }

  /** Inline content with images kept as text (inside headings, list items, cells). */
  private leaves(children: PhrasingContent[]): RichTextNode[] {
    return withText(this.inline(children, {}).map((item) => ('type' in item && item.type === 'image' ? { text: typeof item.alt === 'string' ? item.alt : '' } : item)));
  }

  private inline(nodes: readonly PhrasingContent[], marks: Marks): RichTextNode[] {
    const out: RichTextNode[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const close = node.type === 'html' && node.value === SECRET_SPAN_OPEN ? nodes.findIndex((n, j) => j > i && n.type === 'html' && n.value === SECRET_SPAN_CLOSE) : -1;
      if (close > i) {
        // Our export's secret inline element: one link or mention is itself secret; other
        // content keeps its secrecy in an element of its own (rendered as its children).
        const inner = this.inline(nodes.slice(i + 1, close), marks).filter((n) => !('text' in n) || n.text !== '');
        const only = inner.length === 1 && !('text' in inner[0]!) ? inner[0] : undefined;
        out.push(only ? { ...only, isSecret: true } : { type: 'span', isSecret: true, children: withText(inner) });
        i = close;
        continue;
      }
      switch (node.type) {
        case 'text':
          out.push(...this.text(node.value, marks));
          break;
        case 'emphasis':
          out.push(...this.inline(node.children, { ...marks, italic: true }));
          break;
        case 'strong':
          out.push(...this.inline(node.children, { ...marks, bold: true }));
          break;
        case 'delete':
          out.push(...this.inline(node.children, { ...marks, strikethrough: true }));
          break;
        case 'inlineCode':
          out.push({ text: node.value, ...marks, code: true });
          break;
        case 'break':
          out.push({ text: '\n', ...marks });
          break;
        case 'link': {
          const label = this.inline(node.children, marks);
          out.push(this.link(node.url, label, marks));
          break;
        }
        case 'image':
          out.push(this.image(node.url, node.alt ?? ''));
          break;
        case 'html':
          out.push({ text: node.value, ...marks });
          break;
        case 'linkReference':
          out.push(...this.inline(node.children, marks));
          break;
        case 'imageReference':
          out.push({ text: node.alt ?? '', ...marks });
          break;
        case 'footnoteReference':
          out.push({ text: `[^${node.identifier}]`, ...marks });
          break;
      }
    }
    return out;
  }

  /** Text, with `[[wikilinks]]` to files of the vault made mentions and `![[embeds]]` of its images image blocks. */
  private text(value: string, marks: Marks): RichTextNode[] {
    const out: RichTextNode[] = [];
    let at = 0;
    for (const match of value.matchAll(WIKILINK)) {
      const [whole, bang, reference, label] = match;
      const target = reference!.trim() === '' ? undefined : this.resolve(reference!.trim(), true);
      if (!target) continue;
      if (match.index > at) out.push({ text: value.slice(at, match.index), ...marks });
      at = match.index + whole.length;
      if (target.kind === 'image') out.push(bang ? this.imageOf(target.key, label ?? '') : { text: label ?? reference!, ...marks });
      else out.push(this.mention(target, label?.trim() ?? ''));
    }
    if (at < value.length) out.push({ text: value.slice(at), ...marks });
    return out;
  }

  private link(url: string, label: RichTextNode[], marks: Marks): RichTextNode {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('/') && !url.startsWith('#')) {
      const target = this.resolve(safeDecode(url.split('#')[0]!), false);
      if (target && target.kind !== 'image') return this.mention(target, label.map(plainText).join(''));
      if (target?.kind === 'image') return { text: label.map(plainText).join(''), ...marks };
    }
    return { type: 'link', url, children: withText(label) };
  }

  private mention(target: Target & { kind: 'thing' | 'arc' }, label: string): RichTextNode {
    // The target's name is what a mention shows anyway; a different label is kept.
    return { type: 'mention', targetType: target.kind, targetId: target.key, children: [{ text: label === target.name ? '' : label }] };
  }

  private image(url: string, alt: string): RichTextBlock {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('/')) {
      const target = this.resolve(safeDecode(url), false);
      if (target?.kind === 'image') return this.imageOf(target.key, alt);
    }
    return { type: 'image', url, alt, children: [{ text: '' }] };
  }

  private imageOf(key: number, alt: string): RichTextBlock {
    if (alt !== '' && !this.labels.has(key)) this.labels.set(key, alt);
    return { type: 'image', assetId: key, url: '', alt, children: [{ text: '' }] };
  }
}

function withText(nodes: RichTextNode[]): RichTextNode[] {
  return nodes.length === 0 ? [{ text: '' }] : nodes;
}

function nonEmpty(blocks: RichTextBlock[]): RichTextBlock[] {
  return blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks;
}

function mdText(node: MdNode): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as MdNode[]).map(mdText).join('');
  return '';
}
