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

