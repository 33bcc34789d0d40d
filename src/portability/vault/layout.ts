// The layout of a Markdown vault, shared by its reader (read.ts) and its writer (write.ts): the
// marker of our own export, the arcs folder, the arc fields' section titles, and which files count.
import path from 'node:path';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import { FORMAT_BY_EXT } from '../../images/sniff.js';

/** The marker our own export writes in index.md's front matter. */
export const VAULT_FORMAT = 'loreforge-vault';
export const ARCS_FOLDER = 'Arcs';

export const FIELD_TITLES: Record<ArcTextField, string> = {
  hook: 'Hook',
  protagonist: 'Protagonist',
  antagonist: 'Antagonist',
  problem: 'Problem',
  key: 'Key',
  outcome: 'Outcome',
  notes: 'Notes',
};
export const FIELD_BY_TITLE = new Map(ARC_TEXT_FIELDS.map((field) => [FIELD_TITLES[field].toLowerCase(), field]));


export function isImageFile(name: string): boolean {
  const ext = path.posix.extname(name).slice(1).toLowerCase();
  return FORMAT_BY_EXT.has(ext === 'jpeg' ? 'jpg' : ext);
}

export function isMarkdownFile(name: string): boolean {
  return name.toLowerCase().endsWith('.md');
}

/** Folders a vault keeps for its app (`.obsidian/`, `.trash/`), and macOS's zip residue. */
export function isIgnored(name: string): boolean {
  return name.split('/').some((segment) => segment.startsWith('.') || segment === '__MACOSX');
}


/**
 * Whether a top-level folder holds templates (not imported): its name, without leading `_`, `z_`,
 * digits and separators (`_templates`, `z_Templates`, `99 - Templates`), is "template" or
 * "templates", ignoring case.
 */
export function isTemplatesFolder(name: string): boolean {
  const bare = name.replace(/^(?:z_|[_\d\s.\-–—])+/i, '');
  return /^templates?$/i.test(bare);
}

/** Folders a vault keeps its attachments in (compared ignoring case): not thing types. */
export const ATTACHMENT_FOLDERS: ReadonlySet<string> = new Set(['attachments', '_attachments', 'assets', 'images', 'media', 'files']);

/** Obsidian's settings the reader looks at (each read only when small). */
export const OBSIDIAN_APP_SETTINGS = '.obsidian/app.json';
export const OBSIDIAN_TEMPLATES_SETTINGS = '.obsidian/templates.json';
export const TEMPLATER_SETTINGS = '.obsidian/plugins/templater-obsidian/data.json';
/** A settings file larger than this is not read. */
export const SETTINGS_MAX_BYTES = 64 * 1024;
