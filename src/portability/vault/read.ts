// Importing a Markdown vault (an Obsidian vault, or our own `markdown` export) into an import plan.
//
// - Our own export (index.md says `format: loreforge-vault`) is read back exactly: index.md is the
//   campaign, `Arcs/` holds the arcs with their narrative fields as `## Hook` … sections, front
//   matter gives slugs, type names, visibility, parents, links and times; any problem refuses it.
// - A vault from elsewhere is read leniently (CONTRACT "Import from elsewhere"): a note that cannot
//   be read as it should is imported as well as it can be, and listed in the plan's warnings:
//   front matter that is not valid YAML is read forgivingly (yaml.ts) or left out; a note longer
//   than a thing's text is split into continued parts (split.ts); text the rich-text checks refuse
//   is kept as plain paragraphs, its secrets in secret ones (no fallback ever shows a secret's text,
//   or takes a tag or an image's label from it). Hostile files (bombs, traversal, symlinks, damaged zips, Markdown
//   that takes too long to parse) are still refused whole.
//   - the top folder is the thing type (files at the top level go to "Notes"), deeper folders are
//     tags; a templates folder is not imported; attachment folders are not types (their notes go to
//     "Notes");
//   - front matter: `tags` → tags, `aliases`/`alias` → aliases, every other key → a property
//     (front-matter.ts), but `name`, `visibility: gm`, `createdAt` and `updatedAt`, which the record
//     takes; inline `#tags` of the text → tags too;
//   - links resolve as Obsidian resolves them (see `Resolver`).
// - The Markdown is parsed by micromark (CommonMark + GFM) into mdast and mapped onto the rich-text
//   vocabulary by convert.ts. Image files of the vault become uploaded images (assets).
// - A zip of a folder (one top-level folder holding everything) is read as that folder.
//
// Steps: `scanLayout` (which entries are notes, images, templates), `firstPass` (each note's front
// matter, type, tags of its folders, slug), `readStructure` (properties, tags, aliases), `secondPass`
// (each note's Markdown, one at a time, never all held), `readLinks` (our export's thing–arc links).
import type { Root } from 'mdast';
import path from 'node:path';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import type { FieldIssue } from '../../domain/errors.js';
import { NAME_MAX_LENGTH } from '../../domain/input.js';
import { checkAgainstFields, checkFields, foldKey, TAG_MAX_LENGTH, TAGS_MAX } from '../../domain/properties.js';
import { RICH_TEXT_MAX_BYTES, validateRichText, type RichText, type RichTextBlock, type RichTextNode } from '../../domain/rich-text.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../../domain/slugs.js';
import { parseDateTime } from '../../domain/time.js';
import type { ImportBudget } from '../budget.js';
import { frontMatterAliases, OWN_KEYS, structureFromFrontMatter, TYPE_FIELDS_KEY } from '../front-matter.js';
import { MARKDOWN_PARSE_MS, MarkdownParser } from '../markdown.js';
import { arcCycle, importProblems, type ImportPlan, type PlannedThing } from '../plan.js';
import { decodeEntryText, readEntry, readEntryText, type OpenedZip, type ZipEntry } from '../zip.js';
import { Converter, plainText, safeDecode, toBlocks, type Target } from './convert.js';
import { plainBlocksOf, plainRichText } from './nodes.js';
import {
  ARCS_FOLDER,
  ATTACHMENT_FOLDERS,
  FIELD_BY_TITLE,
  isIgnored,
  isImageFile,
  isMarkdownFile,
  isTemplatesFolder,
  OBSIDIAN_APP_SETTINGS,
  OBSIDIAN_TEMPLATES_SETTINGS,
  SETTINGS_MAX_BYTES,
  TEMPLATER_SETTINGS,
  VAULT_FORMAT,
} from './layout.js';
import { markdownChunks, sizeOf, splitBlocks } from './split.js';
import { forgivingFrontMatter, strictFrontMatter, yamlError, type FrontMatterReading } from './yaml.js';

const LOOSE_NOTES_TYPE = 'Notes';
/** A Markdown file larger than this is refused (a thing's text is at most 256 KiB of JSON). */
export const MARKDOWN_MAX_BYTES = 4 * 1024 * 1024;
/** Front matter is looked for in a file's first bytes only (the first pass reads no further). */
const FRONT_MATTER_MAX_BYTES = 64 * 1024;
/**
 * A note of our own vault whose words (its characters other than ASCII spaces and punctuation,
 * which Markdown may spend on syntax) take more bytes than this cannot fit a thing's text: refused
 * without parsing. Twice the limit leaves room for what Markdown drops (entity names, link
 * definitions). A note from elsewhere is split instead.
 */
const NOTE_TEXT_MAX_BYTES = 2 * RICH_TEXT_MAX_BYTES;
/** A vault's rich text in all (JSON, UTF-16 units): as much as a json document may hold (IMPORT_JSON_MAX_BYTES). */
const VAULT_TEXT_MAX_BYTES = 64 * 1024 * 1024;
/** The time all of a vault's Markdown may take to parse, plus a millisecond per KiB of it. */
export const VAULT_PARSE_MS = 60_000;
/** What a continued part keeps free for the paragraph that links it to the next. */
const CONTINUED_RESERVE = 1024;
const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

type Resolve = (reference: string, wiki: boolean) => Target | undefined;

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
  /** Tags of the folders between its type's folder and itself. */
  folderTags: string[];
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

/** A folder's name as a tag: control characters as spaces, trimmed, at most TAG_MAX_LENGTH characters. */
function folderTag(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const text = [...name.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()].slice(0, TAG_MAX_LENGTH).join('').trim();
  return text === '' ? undefined : text;
}

// Obsidian's tag: `#` at the start or after whitespace, then letters, digits, `_`, `-` and `/`, at
// least one of them not a digit (`#123` is no tag).
const INLINE_TAG = /(?<=^|\s)#([^\s\p{P}\p{S}]|[_\-/])+/gu;

/** The `#tags` of rich text, in order: not in code, links, mentions or secret blocks (a tag is shown to players). */
export function inlineTags(blocks: readonly RichTextNode[]): string[] {
  const found: string[] = [];
  const visit = (nodes: readonly RichTextNode[]) => {
    let run = '';
    const flush = () => {
      for (const match of run.matchAll(INLINE_TAG)) {
        const tag = match[0].slice(1).replace(/\/+$/, '');
        if (tag !== '' && !/^[\d/_-]*$/.test(tag)) found.push(tag);
      }
      run = '';
    };
    for (const node of nodes) {
      if (typeof (node as { text?: unknown }).text === 'string') {
        const leaf = node as { text: string; code?: boolean };
        if (leaf.code) run += '\u0001';
        else run += leaf.text;
        continue;
      }
      const block = node as RichTextBlock;
      if (block.isSecret === true || block.type === 'code-block' || block.type === 'link' || block.type === 'mention') {
        run += '\u0001';
        continue;
      }
      flush();
      visit(block.children ?? []);
    }
    flush();
  };
  visit(blocks);
  return found;
}

/** Tags in order, unique ignoring case, at most TAGS_MAX (cut to TAG_MAX_LENGTH characters). */
function mergeTags(groups: readonly (readonly string[])[], warn: (problem: string) => void): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let over = 0;
  for (const tag of groups.flat()) {
    const cut = [...tag].slice(0, TAG_MAX_LENGTH).join('').trim();
    if (cut === '' || seen.has(foldKey(cut))) continue;
    if (out.length === TAGS_MAX) {
      over += 1;
      continue;
    }
    if (cut !== tag) warn(`the tag "${cut}…" is cut to ${TAG_MAX_LENGTH} characters`);
    seen.add(foldKey(cut));
    out.push(cut);
  }
  if (over > 0) warn(`more than ${TAGS_MAX} tags: ${over} left out`);
  return out;
}

/**
 * Where a link of a note leads, as Obsidian resolves it. A reference is compared ignoring case
 * (Unicode NFC), with or without `.md`, as written or percent-decoded, a trailing `\` (a table's
 * escaped `|`) dropped:
 *   1. `/x/y` — from the vault root only; `./x`, `../x` — from the note's folder only;
 *   2. otherwise, in order: from the note's folder; from the vault root; the notes whose path ends
 *      with the reference (`Castle`, `Waterdeep/Castle`: a file name anywhere, or a partial path);
 *      a note's alias (a file name always wins over an alias);
 *   3. when several match in 2, the nearest: one in the note's own folder, else the shortest path
 *      (fewest folders, then fewest characters, then the first in alphabetical order).
 * An image file is a target by its name with its extension.
 *
 * A hostile vault may hold thousands of notes of one name and thousands of links to them: a link
 * costs lookups, never a scan of those notes. Answers are kept by (reference, linking folder). The
 * notes whose paths end with a reference are a node of a trie of the paths read from their ends,
 * split a level further only when a link asks (so each path is looked at once per segment at most),
 * each node knowing its shortest path; the one in the linking note's own folder is found by its
 * path. An alias's notes are sorted out once, by folder. (Vault paths are the zip reader's: no
 * empty, `.` or `..` segment.) Adding a file or an alias after links were resolved starts over.
 */
export class Resolver {
  private readonly byPath = new Map<string, Target>();
  /** Notes (their paths without `.md`) and images: the root of the trie of paths read from their ends. */
  private readonly ending: Ending = { candidates: [] };
  /** The first note or image added at each path (a note `x.png.md` and an image `x.png` share one). */
  private readonly firstAt = new Map<string, Candidate>();
  private readonly byAlias = new Map<string, Group>();
  /** Answers by linking folder, then reference (null: none). */
  private readonly answers = new Map<string, Map<string, Target | null>>();

  /** `work`, for tests: counts the references resolved afresh and the candidates looked at. */
  constructor(private readonly work?: ResolverWork) {}

  add(vaultPath: string, target: Target): void {
    const key = vaultPath.normalize('NFC').toLowerCase();
    this.byPath.set(key, target);
    const candidate = candidateOf(target.kind === 'image' ? key : key.replace(/\.md$/, ''), target);
    if (!this.firstAt.has(candidate.path)) this.firstAt.set(candidate.path, candidate);
    this.ending.candidates.push(candidate);
    this.ending.next = undefined;
    this.answers.clear();
  }

  addAlias(alias: string, vaultPath: string, target: Target): void {
    const key = alias.normalize('NFC').toLowerCase();
    const group = this.byAlias.get(key) ?? { candidates: [] };
    group.candidates.push(candidateOf(vaultPath.normalize('NFC').toLowerCase().replace(/\.md$/, ''), target));
    group.byFolder = undefined;
    this.byAlias.set(key, group);
    this.answers.clear();
  }

  /** The resolver of the note at `from` (a vault path), as convert.ts calls it. */
  from(from: string): Resolve {
    const folder = path.posix.dirname(from.normalize('NFC').toLowerCase());
    return (reference) => {
      const raw = reference.trim().replace(/\\+$/, '').trim().normalize('NFC');
      const decoded = safeDecode(raw).normalize('NFC');
      return this.find(raw.toLowerCase(), folder) ?? (decoded === raw ? undefined : this.find(decoded.toLowerCase(), folder));
    };
  }

  private exact(vaultPath: string): Target | undefined {
    if (vaultPath.startsWith('../') || vaultPath === '..') return undefined;
    return this.byPath.get(vaultPath) ?? (isMarkdownFile(vaultPath) ? undefined : this.byPath.get(`${vaultPath}.md`));
  }

  private find(reference: string, folder: string): Target | undefined {
    if (reference === '') return undefined;
    let answers = this.answers.get(folder);
    if (!answers) this.answers.set(folder, (answers = new Map<string, Target | null>()));
    let answer = answers.get(reference);
    if (answer === undefined) {
      if (this.work) this.work.resolutions += 1;
      answer = this.resolve(reference, folder) ?? null;
      answers.set(reference, answer);
    }
    return answer ?? undefined;
  }

  private resolve(reference: string, folder: string): Target | undefined {
    const relative = () => this.exact(path.posix.normalize(path.posix.join(folder, reference)));
    if (reference.startsWith('/')) return this.exact(path.posix.normalize(reference.replace(/^\/+/, '')));
    if (reference.startsWith('./') || reference.startsWith('../')) return relative();
    const found = relative() ?? this.exact(path.posix.normalize(reference));
    if (found) return found;
    const bare = reference.replace(/\.md$/, '');
    return this.byEnding(bare, folder) ?? this.byAliasOf(bare, folder);
  }

  /** The nearest note or image whose path is `bare` or ends with `/bare`. */
  private byEnding(bare: string, folder: string): Target | undefined {
    const segments = bare.split('/');
    let node: Ending | undefined = this.ending;
    for (let depth = 0; node && depth < segments.length; depth++) node = this.split(node, depth).get(segments[segments.length - 1 - depth]!);
    if (!node) return undefined;
    const own = this.firstAt.get(folder === '.' ? segments.at(-1)! : `${folder}/${segments.at(-1)!}`);
    return own && (own.path === bare || own.path.endsWith(`/${bare}`)) ? own.target : node.shortest!.target;
  }

  /** The children of a node `depth` segments from the paths' ends: its candidates by their next segment. */
  private split(node: Ending, depth: number): Map<string, Ending> {
    if (node.next) return node.next;
    const next = new Map<string, Ending>();
    for (const candidate of node.candidates) {
      if (this.work) this.work.visits += 1;
      const at = candidate.segments.length - 1 - depth;
      if (at < 0) continue;
      const child = next.get(candidate.segments[at]!);
      if (!child) next.set(candidate.segments[at]!, { candidates: [candidate], shortest: candidate });
      else {
        child.candidates.push(candidate);
        if (shorter(candidate, child.shortest!)) child.shortest = candidate;
      }
    }
    node.next = next;
    return next;
  }

  /** The nearest note with the alias `key`. */
  private byAliasOf(key: string, folder: string): Target | undefined {
    const group = this.byAlias.get(key);
    if (!group) return undefined;
    if (!group.byFolder) {
      group.byFolder = new Map();
      group.shortest = undefined;
      for (const candidate of group.candidates) {
        if (this.work) this.work.visits += 1;
        const dir = path.posix.dirname(candidate.path);
        if (!group.byFolder.has(dir)) group.byFolder.set(dir, candidate);
        if (!group.shortest || shorter(candidate, group.shortest)) group.shortest = candidate;
      }
    }
    return (group.byFolder.get(folder) ?? group.shortest)?.target;
  }
}

/** What a resolver did (tests count it): references resolved afresh, candidates looked at. */
export interface ResolverWork {
  resolutions: number;
  visits: number;
}

/** A note (its path without `.md`) or an image, its path's segments counted once. */
interface Candidate {
  path: string;
  segments: string[];
  target: Target;
}

/** The candidates whose paths end with the same segments; `next` splits them by one more, once asked. */
interface Ending {
  candidates: Candidate[];
  shortest?: Candidate;
  next?: Map<string, Ending>;
}

/** The notes of one alias; by folder (the first in each) and the shortest, once asked. */
interface Group {
  candidates: Candidate[];
  byFolder?: Map<string, Candidate>;
  shortest?: Candidate;
}

function candidateOf(vaultPath: string, target: Target): Candidate {
  return { path: vaultPath, segments: vaultPath.split('/'), target };
}

/** Whether `a` is nearer than `b` when neither is in the linking note's folder: fewer folders, fewer characters, alphabetical order (else the first added stays). */
function shorter(a: Candidate, b: Candidate): boolean {
  if (a.segments.length !== b.segments.length) return a.segments.length < b.segments.length;
  if (a.path.length !== b.path.length) return a.path.length < b.path.length;
  return a.path < b.path;
}

/** What the layout scan finds: which entries count, and how the vault is laid out. */
interface Layout {
  /** The folder that wraps everything (a zip of a folder), if any. */
  wrapper: string | undefined;
  markdown: ZipEntry[];
  images: ZipEntry[];
  ignored: ZipEntry[];
  indexEntry: ZipEntry | undefined;
  index: FrontMatterReading & { bodyAt: number } | undefined;
  ours: boolean;
  /** Vault paths of folders of templates (lower case), and of attachments. */
  templates: string[];
  attachments: string[];
}

/** Reads the vault in `opened` into a plan; `fallbackName` names the campaign when nothing in the vault does. */
export async function planFromVault(opened: OpenedZip, fallbackName: string, budget: ImportBudget): Promise<ImportPlan> {
  const reader = new VaultReader(opened, budget, await scanLayout(opened, budget));
  return reader.read(fallbackName);
}

function inVaultOf(wrapper: string | undefined): (name: string) => string {
  return (name) => (wrapper === undefined ? name : name.slice(wrapper.length + 1));
}

/** A small JSON file of the vault's `.obsidian/` settings, or undefined (absent, too large, not JSON). */
async function readSettings(opened: OpenedZip, name: string, budget: ImportBudget): Promise<Record<string, unknown> | undefined> {
  const entry = opened.entries.find((e) => e.name === name);
  if (!entry || entry.size > SETTINGS_MAX_BYTES) return undefined;
  try {
    const value = JSON.parse(await readEntryText(opened, entry, budget)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A folder setting of Obsidian as a vault path (lower case, no slashes around), or undefined. */
function settingFolder(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const raw = value.trim();
  // `./x` is a folder beside each note (Obsidian's "in subfolder under current folder"): no one folder of the vault.
  if (raw === '' || raw === '.' || raw.startsWith('./') || raw.startsWith('../')) return undefined;
  const folder = path.posix.normalize(raw.replace(/^\/+|\/+$/g, '')).normalize('NFC').toLowerCase();
  return folder === '' || folder === '.' || folder.startsWith('..') ? undefined : folder;
}

async function scanLayout(opened: OpenedZip, budget: ImportBudget): Promise<Layout> {
  const files = opened.entries.filter((e) => !isIgnored(e.name));
  // A zip of a folder: everything under one top-level folder.
  const tops = new Set(files.map((e) => (e.name.includes('/') ? e.name.split('/')[0]! : '')));
  const wrapper = tops.size === 1 && !tops.has('') ? [...tops][0]! : undefined;
  const inVault = inVaultOf(wrapper);
  const markdown = files.filter((e) => isMarkdownFile(e.name));
  const images = files.filter((e) => isImageFile(e.name));
  const ignored = files.filter((e) => !isMarkdownFile(e.name) && !isImageFile(e.name) && !e.name.endsWith('/'));
  const indexEntry = markdown.find((e) => inVault(e.name) === 'index.md');
  let index: Layout['index'];
  if (indexEntry) {
    // Our own export is recognised by index.md's front matter, read strictly: a vault whose index.md is not valid YAML is read as one from elsewhere.
    const strict = await readFrontMatter(opened, indexEntry, budget, 'strict-or-none');
    index = strict.meta.format === VAULT_FORMAT ? strict : await readFrontMatter(opened, indexEntry, budget, 'lenient');
  }
  const ours = index?.meta.format === VAULT_FORMAT && index.problem === undefined;
  const templates: string[] = [];
  const attachments: string[] = [];
  if (!ours) {
    const settings = (name: string) => readSettings(opened, wrapper === undefined ? name : `${wrapper}/${name}`, budget);
    for (const top of new Set(markdown.map((e) => inVault(e.name)).filter((p) => p.includes('/')).map((p) => p.split('/')[0]!))) {
      if (isTemplatesFolder(top)) templates.push(top.normalize('NFC').toLowerCase());
    }
    const named = [settingFolder((await settings(OBSIDIAN_TEMPLATES_SETTINGS))?.folder), settingFolder((await settings(TEMPLATER_SETTINGS))?.templates_folder)];
    for (const folder of named) if (folder !== undefined) templates.push(folder);
    const attachmentFolder = settingFolder((await settings(OBSIDIAN_APP_SETTINGS))?.attachmentFolderPath);
    if (attachmentFolder !== undefined) attachments.push(attachmentFolder);
  }
  return { wrapper, markdown, images, ignored, indexEntry, index, ours, templates, attachments };
}

/**
 * A note's front matter, from its first bytes only: the entry is read until its front matter ends
 * (or plainly has none), at most FRONT_MATTER_MAX_BYTES. `bodyAt` is where its Markdown begins.
 * `strict` refuses front matter that is not valid YAML (our own vault); `lenient` reads it
 * forgivingly (yaml.ts); `strict-or-none` gives none, with the problem, instead of refusing.
 */
async function readFrontMatter(
  opened: OpenedZip,
  entry: ZipEntry,
  budget: ImportBudget,
  mode: 'strict' | 'lenient' | 'strict-or-none',
): Promise<FrontMatterReading & { bodyAt: number }> {
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
  const bodyAt = match[0].length;
  if (mode === 'lenient') return { ...forgivingFrontMatter(match[1]!), bodyAt };
  try {
    return { ...strictFrontMatter(match[1]!), bodyAt };
  } catch (error) {
    const problem = `the front matter is not valid YAML (${yamlError(error)})`;
    if (mode === 'strict') throw importProblems(entry.name, [{ path: '', message: problem }]);
    return { meta: {}, entries: [], bodyAt, problem };
  }
}

/** One vault being read into a plan, step by step (see the top of this file). */
class VaultReader {
  private readonly inVault: (name: string) => string;
  private readonly now = new Date().toISOString();
  private readonly plan: ImportPlan;
  private readonly resolver = new Resolver();
  private readonly notes: NoteFile[] = [];
  private readonly thingSlugs = new Set<string>();
  private readonly arcSlugs = new Set<string>();
  private readonly typeKeys = new Map<string, number>();
  /** Our export lists the types' declared fields in index.md, by type name. */
  private readonly declared = new Map<string, unknown>();
  private readonly thingsByKey = new Map<number, PlannedThing>();
  private readonly labels = new Map<number, string>();

  constructor(
    private readonly opened: OpenedZip,
    private readonly budget: ImportBudget,
    private readonly layout: Layout,
  ) {
    this.inVault = inVaultOf(layout.wrapper);
    this.plan = { campaign: { slug: undefined, name: '', description: [], createdAt: this.now, updatedAt: this.now }, thingTypes: [], things: [], arcs: [], links: [], assets: [], warnings: [] };
  }

  private warn(entry: ZipEntry, problem: string): void {
    this.plan.warnings.push({ entry: entry.name, problem });
  }

  private mtime(entry: ZipEntry): string {
    const date = entry.entry.getLastModDate();
    return Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1981 ? this.now : date.toISOString();
  }

  async read(fallbackName: string): Promise<ImportPlan> {
    const { index, ours } = this.layout;
    const meta = index?.meta ?? {};
    Object.assign(this.plan.campaign, {
      name: cleanName(metaString(meta, 'name') ?? this.layout.wrapper ?? fallbackName),
      createdAt: metaTime(meta, 'createdAt', this.now),
      updatedAt: metaTime(meta, 'updatedAt', this.now),
    });
    this.plan.lenient = !ours;
    if (ours) {
      const listed = meta[TYPE_FIELDS_KEY];
      if (typeof listed === 'object' && listed !== null && !Array.isArray(listed)) for (const [name, fields] of Object.entries(listed)) this.declared.set(name.toLowerCase(), fields);
      const slug = metaString(meta, 'slug');
      if (slug !== undefined && isValidSlug(slug)) this.plan.campaign.slug = slug;
    }
    await this.firstPass();
    this.readStructure();
    this.budget.addSteps(this.notes.length);
    await this.secondPass();
    if (ours) this.readLinks();
    for (const entry of this.layout.ignored) this.warn(entry, 'neither Markdown nor an image: not imported');
    return this.plan;
  }

  /** Where a note of a vault from elsewhere goes: its type's name and the tags of its folders, or undefined for a template. */
  private placeOf(vaultPath: string): { typeName: string; folderTags: string[] } | undefined {
    const folded = vaultPath.normalize('NFC').toLowerCase();
    const under = (folder: string) => folded.startsWith(`${folder}/`);
    if (this.layout.templates.some(under)) return undefined;
    const folders = vaultPath.split('/').slice(0, -1);
    // An attachment folder's notes go to "Notes"; the folders below it are tags.
    const setting = this.layout.attachments.find(under);
    const attachmentDepth = setting !== undefined ? setting.split('/').length : folders.length > 0 && ATTACHMENT_FOLDERS.has(folders[0]!.toLowerCase()) ? 1 : 0;
    const typeName = folders.length === 0 || attachmentDepth > 0 ? LOOSE_NOTES_TYPE : folders[0]!;
    const folderTags = folders.slice(Math.max(1, attachmentDepth)).map(folderTag).filter((tag): tag is string => tag !== undefined);
    return { typeName, folderTags };
  }

  /** Each note's front matter (its first bytes only), name, type, slug and place among the targets of links. */
  private async firstPass(): Promise<void> {
    const { ours, indexEntry, markdown } = this.layout;
    for (const entry of markdown) {
      if (entry === indexEntry && ours) continue;
      const vaultPath = this.inVault(entry.name);
      const folder = vaultPath.includes('/') ? vaultPath.split('/')[0]! : undefined;
      const isArc = ours && folder === ARCS_FOLDER;
      const place = ours ? { typeName: folder ?? LOOSE_NOTES_TYPE, folderTags: [] } : this.placeOf(vaultPath);
      if (!place) {
        this.warn(entry, 'a template, not imported');
        continue;
      }
      this.budget.check();
      const { meta, entries, bodyAt, problem } = await readFrontMatter(this.opened, entry, this.budget, ours ? 'strict' : 'lenient');
      if (problem !== undefined) this.warn(entry, problem);
      const name = cleanName(metaString(meta, 'name') ?? path.posix.basename(vaultPath).slice(0, -3));
      const key = (isArc ? this.plan.arcs.length : this.plan.things.length) + 1;
      const note: NoteFile = { entry, path: vaultPath, kind: isArc ? 'arc' : 'thing', key, meta, entries, bodyAt, name, folderTags: place.folderTags };
      this.notes.push(note);
      this.resolver.add(vaultPath, { kind: note.kind, key, name });
      const wanted = ours ? metaString(meta, 'slug') : undefined;
      const slug = this.freeSlug(isArc ? 'arc' : 'thing', wanted !== undefined && isValidSlug(wanted) ? wanted : slugifyName(name));
      const visibility = meta.visibility === 'gm' ? 'gm' : 'all';
      const createdAt = metaTime(meta, 'createdAt', this.mtime(entry));
      const updatedAt = metaTime(meta, 'updatedAt', this.mtime(entry));
      // Properties, tags and aliases (their links once every note is known: readStructure).
      const structure = { properties: [], tags: [], aliases: [] };
      if (isArc) {
        this.plan.arcs.push({ key, slug, name, parentKey: null, visibility, fields: emptyFields(), ...structure, createdAt, updatedAt });
      } else {
        // Our export names the type in the front matter (its folder's name may have lost characters).
        const typeKey = this.typeKey(cleanName((ours ? metaString(meta, 'type') : undefined) ?? place.typeName), createdAt);
        const thing: PlannedThing = { key, slug, typeKey, name, visibility, description: [], ...structure, createdAt, updatedAt };
        this.plan.things.push(thing);
        this.thingsByKey.set(key, thing);
      }
    }
    this.layout.images.forEach((entry, i) => {
      const vaultPath = this.inVault(entry.name);
      this.resolver.add(vaultPath, { kind: 'image', key: i + 1 });
      this.plan.assets.push({ key: i + 1, label: cleanName(path.posix.basename(vaultPath).replace(/\.[^.]+$/, '')), url: undefined, file: entry.name, createdAt: this.mtime(entry) });
    });
  }

  private freeSlug(kind: 'thing' | 'arc', wanted: string): string {
    const slugs = kind === 'arc' ? this.arcSlugs : this.thingSlugs;
    const base = wanted || kind;
    const slug = slugs.has(base) ? nextFreeSlug(base, slugs) : base;
    slugs.add(slug);
    return slug;
  }

  private typeKey(typeName: string, createdAt: string): number {
    let typeKey = this.typeKeys.get(typeName.toLowerCase());
    if (typeKey !== undefined) return typeKey;
    typeKey = this.plan.thingTypes.length + 1;
    this.typeKeys.set(typeName.toLowerCase(), typeKey);
    const given = this.declared.get(typeName.toLowerCase());
    const issues: FieldIssue[] = [];
    const fields = given === undefined ? [] : checkFields(given, `/${TYPE_FIELDS_KEY}/${typeName}`, issues);
    if (issues.length > 0) throw importProblems(this.layout.indexEntry!.name, issues);
    this.plan.thingTypes.push({ key: typeKey, name: typeName, fields, createdAt, updatedAt: createdAt });
    return typeKey;
  }

  /**
   * Front matter → properties, tags and aliases. Our own notes keep their own keys (id, slug,
   * type…); another vault's give up only what became the record's name, visibility and times, and
   * what does not fit the limits is cut or left out with a warning.
   */
  private readStructure(): void {
    const { ours } = this.layout;
    // Aliases first: a link may name a note by its alias, whichever note is read first.
    if (!ours) for (const note of this.notes) for (const alias of frontMatterAliases(note.entries)) this.resolver.addAlias(alias, note.path, { kind: note.kind, key: note.key, name: note.name });
    for (const note of this.notes) {
      const resolve = this.resolver.from(note.path);
      const warn = ours ? undefined : (problem: string) => this.warn(note.entry, `front matter ${problem}`);
      const structure = structureFromFrontMatter(
        note.entries,
        ours ? OWN_KEYS : usedKeys(note.meta),
        (reference) => {
          const target = resolve(reference, true);
          return target && target.kind !== 'image' ? { targetType: target.kind, targetId: target.key } : undefined;
        },
        warn,
      );
      if (!ours) structure.tags = mergeTags([structure.tags, note.folderTags], warn!);
      const record = note.kind === 'thing' ? this.thingsByKey.get(note.key)! : this.plan.arcs[note.key - 1]!;
      Object.assign(record, structure);
      // A value of a key the note's type declares must match its kind, as the API requires.
      if (note.kind === 'thing') {
        const issues: FieldIssue[] = [];
        checkAgainstFields(structure.properties, this.plan.thingTypes[this.thingsByKey.get(note.key)!.typeKey - 1]!.fields, '/properties', issues);
        if (issues.length > 0) throw importProblems(note.entry.name, issues);
      }
    }
  }

  /** Each note's Markdown, read, parsed and converted one at a time. */
  private async secondPass(): Promise<void> {
    const { ours, index, indexEntry, markdown } = this.layout;
    const parser = new MarkdownParser();
    // All of a vault's Markdown together gets VAULT_PARSE_MS plus a millisecond per KiB: thousands of
    // notes each just within its own allowance would otherwise keep a worker busy for hours.
    let parseMsLeft = VAULT_PARSE_MS + Math.ceil(markdown.reduce((sum, e) => sum + e.size, 0) / 1024);
    const parse = async (text: string, file: string) => {
      if (parseMsLeft <= 0) throw importProblems(file, [{ path: '', message: `the vault's Markdown takes longer than its allowance to read in all` }]);
      const started = performance.now();
      try {
        return await parser.parse(text, file, this.budget.signal, Math.min(MARKDOWN_PARSE_MS + Math.ceil(text.length / 1024), parseMsLeft));
      } finally {
        parseMsLeft -= performance.now() - started;
      }
    };
    /** The note's Markdown as rich text: in pieces when it is long (from elsewhere), else at once. */
    const blocksOf = async (entry: ZipEntry, bodyAt: number, resolve: Resolve): Promise<RichTextBlock[]> => {
      const body = (await readEntryText(this.opened, entry, this.budget)).slice(bodyAt);
      const converter = new Converter(resolve, this.labels, ours);
      const noteEmbeds = (blocks: RichTextBlock[]) => {
        const names = [...converter.unimportedEmbeds];
        if (names.length > 0) this.warn(entry, `embeds ${names.map((name) => `"${name}"`).join(', ')}, not imported (not in the vault, or neither a note nor an image): kept as ${names.length === 1 ? 'its name' : 'their names'}`);
        return blocks;
      };
      if (ours) {
        const words = wordBytes(body);
        if (words > NOTE_TEXT_MAX_BYTES) {
          throw importProblems(entry.name, [{ path: '', message: `holds ${words} bytes of text; a thing's text is at most ${RICH_TEXT_MAX_BYTES} bytes of JSON` }]);
        }
        return noteEmbeds(toBlocks(converter, await parse(body, entry.name), entry.name));
      }
      const blocks: RichTextBlock[] = [];
      // A comment still open at the end of a piece goes on in the next: its opening is carried over.
      let open = '';
      for (const chunk of markdownChunks(body)) {
        const tree = await parse(open + chunk, entry.name);
        open = unclosedComment(tree);
        try {
          blocks.push(...toBlocks(converter, tree, entry.name));
        } catch (error) {
          // Content nested thousands deep: its text, as paragraphs, its secrets secret.
          if (!(error instanceof Error && /nests too deeply/.test(error.message))) throw error;
          this.warn(entry, 'the Markdown nests too deeply to read: kept as plain text');
          blocks.push(...plainBlocksOf(tree.children));
        }
      }
      return noteEmbeds(blocks);
    };
    let textBytes = 0;
    const count = (entry: ZipEntry, blocks: RichText) => {
      // The plan holds every note's text until it is written: in all, at most what a json document may hold.
      textBytes += JSON.stringify(blocks).length;
      if (textBytes > VAULT_TEXT_MAX_BYTES) {
        throw importProblems(entry.name, [{ path: '', message: `the vault's text passes ${VAULT_TEXT_MAX_BYTES} bytes of rich text in all, the most one import holds` }]);
      }
    };
    try {
      for (const note of this.notes) {
        this.budget.check();
        const resolve = this.resolver.from(note.path);
        let blocks = await blocksOf(note.entry, note.bodyAt, resolve);
        // The title our export (and many notes) start with.
        const first = blocks[0];
        if (first?.type === 'heading-one' && plainText(first) === note.name) blocks = blocks.slice(1);
        if (note.kind === 'arc') this.readArc(note, blocks, resolve);
        else if (ours) this.readOwnThing(note, blocks);
        else this.readThing(note, blocks);
        count(note.entry, blocks);
        this.budget.advance();
      }
      if (index && ours) {
        let blocks = await blocksOf(indexEntry!, index.bodyAt, this.resolver.from('index.md'));
        if (blocks[0]?.type === 'heading-one' && plainText(blocks[0]) === this.plan.campaign.name) blocks = blocks.slice(1);
        this.plan.campaign.description = blocks;
        this.plan.campaign.origin = { entry: indexEntry!.name, path: '/description' };
        const issues = blocks.length > 0 ? validateRichText(blocks, '/description') : [];
        if (issues.length > 0) throw importProblems(indexEntry!.name, issues);
      }
    } finally {
      await parser.close();
    }
    for (const asset of this.plan.assets) asset.label = this.labels.get(asset.key) || asset.label;
  }

  private readOwnThing(note: NoteFile, blocks: RichTextBlock[]): void {
    const thing = this.thingsByKey.get(note.key)!;
    thing.description = blocks;
    thing.origin = { entry: note.entry.name, path: '/description' };
    const issues = validateRichText(blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks, '/description');
    if (issues.length > 0) throw importProblems(note.entry.name, issues);
  }

  private readArc(note: NoteFile, blocks: RichTextBlock[], resolve: Resolve): void {
    const arc = this.plan.arcs[note.key - 1]!;
    arc.fields = arcFields(blocks);
    arc.origin = { entry: note.entry.name, path: '' };
    const issues: FieldIssue[] = [];
    for (const field of ARC_TEXT_FIELDS) if (arc.fields[field].length > 0) issues.push(...validateRichText(arc.fields[field], `/${field}`));
    if (issues.length > 0) throw importProblems(note.entry.name, issues);
    const parent = linkedTargets(note.meta.parent, resolve).find((t) => t.kind === 'arc');
    if (parent) arc.parentKey = parent.key;
  }

  /**
   * A note from elsewhere: its inline `#tags` join its tags; text the rich-text checks refuse is kept
   * as plain paragraphs; text longer than a thing holds is split into continued parts: the thing
   * "X", then "X (continued 2)", "X (continued 3)"… of the same type, visibility, times and tags,
   * each ending with a paragraph "Continued in" and a mention of the next. Splitting loses nothing
   * (a tail kept as a code block would still be over the limit, or lose its formatting).
   */
  private readThing(note: NoteFile, blocks: RichTextBlock[]): void {
    const thing = this.thingsByKey.get(note.key)!;
    thing.tags = mergeTags([thing.tags, inlineTags(blocks)], (problem) => this.warn(note.entry, problem));
    thing.origin = { entry: note.entry.name, path: '/description' };
    const structural = validateRichText(blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks, '/description').filter((issue) => !/bytes of JSON$/.test(issue.message));
    if (structural.length > 0) {
      this.warn(note.entry, `the text cannot be kept as it is (${structural[0]!.path} ${structural[0]!.message}): kept as plain paragraphs`);
      blocks = plainRichText(blocks);
    }
    const size = sizeOf(blocks);
    if (size <= RICH_TEXT_MAX_BYTES) {
      thing.description = blocks;
      return;
    }
    const parts = splitBlocks(blocks, RICH_TEXT_MAX_BYTES - CONTINUED_RESERVE);
    const things = [thing];
    for (let k = 2; k <= parts.length; k++) {
      const suffix = ` (continued ${k})`;
      const name = `${[...thing.name].slice(0, NAME_MAX_LENGTH - suffix.length).join('').trim()}${suffix}`;
      const key = this.plan.things.length + 1;
      const part: PlannedThing = { ...thing, key, name, slug: this.freeSlug('thing', slugifyName(name)), properties: [], aliases: [], tags: [...thing.tags] };
      this.plan.things.push(part);
      this.thingsByKey.set(key, part);
      things.push(part);
    }
    things.forEach((part, i) => {
      const next = things[i + 1];
      part.description = next ? [...parts[i]!, { type: 'paragraph', children: [{ text: 'Continued in ' }, { type: 'mention', targetType: 'thing', targetId: next.key, children: [{ text: '' }] }, { text: '' }] }] : parts[i]!;
    });
    this.warn(
      note.entry,
      `holds ${size} bytes of rich text, more than the ${RICH_TEXT_MAX_BYTES} of a thing's text: imported as ${parts.length} things, "${thing.name}" and "${things[1]!.name}"${parts.length > 2 ? ` to "${things.at(-1)!.name}"` : ''}, each ending with a mention of the next`,
    );
  }

  /** Our export's links between things and arcs, from either side's front matter; each pair once. */
  private readLinks(): void {
    const pairs = new Set<string>();
    for (const note of this.notes) {
      const listed = linkedTargets(note.kind === 'thing' ? note.meta.arcs : note.meta.things, this.resolver.from(note.path));
      for (const other of listed) {
        const [thingKey, arcKey] = note.kind === 'thing' ? [note.key, other.kind === 'arc' ? other.key : 0] : [other.kind === 'thing' ? other.key : 0, note.key];
        if (thingKey === 0 || arcKey === 0 || pairs.has(`${thingKey}:${arcKey}`)) continue;
        pairs.add(`${thingKey}:${arcKey}`);
        this.plan.links.push({ thingKey, arcKey, createdAt: this.thingsByKey.get(thingKey)!.createdAt });
      }
    }
    const loop = arcCycle(this.plan.arcs);
    if (loop !== undefined) {
      const entry = this.notes.find((n) => n.kind === 'arc' && n.key === this.plan.arcs[loop]!.key)!.entry;
      throw importProblems(entry.name, [{ path: '/parent', message: 'makes the arcs a loop (an arc cannot be its own ancestor)' }]);
    }
  }
}

/** The comment opening (`%%`, `<!--`) a parsed piece of Markdown ends inside of (see markdown-worker.mjs), or ''. */
function unclosedComment(tree: Root): string {
  const open: unknown = (tree.data as Record<string, unknown> | undefined)?.unclosedComment;
  return open === '%%' || open === '<!--' ? open : '';
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
function linkedTargets(value: unknown, resolve: Resolve): Target[] {
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

/**
 * The plan without the images that could not be stored (over MAX_UPLOAD_BYTES, or not an image
 * after all): each image block of one becomes a paragraph of its alt text, or its file's name,
 * secret when the image was.
 */
export function withoutAssets(plan: ImportPlan, keys: ReadonlySet<number>): void {
  if (keys.size === 0) return;
  const names = new Map(plan.assets.filter((a) => keys.has(a.key)).map((a) => [a.key, path.posix.basename(a.file)]));
  plan.assets = plan.assets.filter((a) => !keys.has(a.key));
  const walk = (nodes: RichTextNode[]): RichTextNode[] =>
    nodes.map((node) => {
      const block = node as RichTextBlock;
      if (block.type === 'image' && typeof block.assetId === 'number' && names.has(block.assetId)) {
        const alt = typeof block.alt === 'string' && block.alt.trim() !== '' ? block.alt : names.get(block.assetId)!;
        // A secret image's text is as secret as the image.
        return block.isSecret === true ? { type: 'paragraph', isSecret: true, children: [{ text: alt }] } : { type: 'paragraph', children: [{ text: alt }] };
      }
      return Array.isArray(block.children) ? { ...block, children: walk(block.children) } : node;
    });
  for (const thing of plan.things) thing.description = walk(thing.description) as RichTextBlock[];
  for (const arc of plan.arcs) for (const field of ARC_TEXT_FIELDS) arc.fields[field] = walk(arc.fields[field]) as RichTextBlock[];
  plan.campaign.description = walk(plan.campaign.description) as RichTextBlock[];
}
