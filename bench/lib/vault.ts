// A generated Obsidian vault of game-master notes, as real ones are written: folders several deep
// (a rules folder nested like a GURPS world's, NPCs by faction, sessions by year, a templates
// folder), front matter with tags, aliases and properties (and the odd block strict YAML refuses),
// wikilinks of every form Obsidian writes (by file name, by path, from the root, with headings,
// block ids and labels, embeds), relative Markdown links, paragraphs of varied prose, callouts,
// %% comments %%, highlights, tasks, and a few images. The same count gives the same vault.
import { description, prng, thingName, type RichText } from './content.js';

export interface VaultFile {
  name: string;
  data: Buffer | string;
}

const FOLDERS = [
  'NPCs/Nobles',
  'NPCs/Guilds/Thieves',
  'NPCs/Guilds/Merchants',
  'Locations/Sword Coast/Waterdeep/Wards',
  'Locations/Underdark',
  'Items/Artifacts',
  '3-Mechanics/Combat/Maneuvers/Advanced',
  '3-Mechanics/Magic/Spells/Level 1',
  'Sessions/2024',
  'Factions',
] as const;

/** Inline text of a description block, as Markdown (bold and italic marks kept). */
function inline(block: RichText[number]): string {
  return block.children
    .map((child) => {
      if (!('text' in child)) return '';
      if (child.bold) return `**${child.text}**`;
      if (child.italic) return `*${child.text}*`;
      return child.text;
    })
    .join('');
}

interface Note {
  folder: string;
  name: string;
}

/** The vault's notes: where each lives and its name (unique in the vault, but for a few on purpose). */
function notes(count: number): Note[] {
  const out: Note[] = [];
  for (let i = 0; i < count; i++) {
    const folder = FOLDERS[i % FOLDERS.length]!;
    // A few names repeat in two folders: links by file name go to the nearest.
    const name = i % 500 === 7 && i > 0 ? out[i - 7]!.name : `${thingName(i % 5, Math.floor(i / 5))}${i >= 5 * 900 ? ` ${i}` : ''}`;
    out.push({ folder, name });
  }
  return out;
}

/** A link from note `from` to note `to`, in one of the forms Obsidian users write. */
function link(from: Note, to: Note, form: number): string {
  const rel = relative(from.folder, `${to.folder}/${to.name}.md`);
  switch (form % 10) {
    case 0:
      return `[[${to.name}]]`;
    case 1:
      return `[[${to.name}|${to.name.split(' ')[0]}]]`;
    case 2:
      return `[[${to.folder}/${to.name}]]`;
    case 3:
      return `[[/${to.folder}/${to.name}.md|${to.name}]]`;
    case 4:
      return `[[${to.name}#History]]`;
    case 5:
      return `[[${to.name}^quote1]]`;
    case 6:
      return `[${to.name}](${encodeURI(rel)})`;
    case 7:
      return `[${to.name}](<${rel}>)`;
    case 8:
      return `[[${to.name.toLowerCase()}]]`;
    default:
      return `![[${to.name}]]`;
  }
}

function relative(fromFolder: string, toPath: string): string {
  const from = fromFolder.split('/');
  const to = toPath.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}

function frontMatter(i: number, note: Note, random: () => number, all: Note[], badYaml: boolean): string {
  if (badYaml && i % 97 === 3) {
    // What a converter writes and strict YAML refuses: quotes inside a quoted string.
    return `---\naliases: ["${note.name} "the ${note.name.split(' ')[0]}" of old"]\ntags: [npc]\n---\n`;
  }
  if (i % 5 === 4) return '';
  const lines = ['---'];
  lines.push(`tags: [${['npc', 'location', 'item', 'faction', 'event'][i % 5]}, ${note.folder.split('/')[0]!.toLowerCase().replace(/[^a-z0-9]+/g, '-')}${random() < 0.3 ? ', secret' : ''}]`);
  if (random() < 0.6) lines.push(`aliases:\n  - ${note.name.split(' ')[0]} ${i}`);
  if (random() < 0.5) lines.push(`species: ${['human', 'elf', 'dwarf', 'halfling'][i % 4]}`);
  if (random() < 0.4) lines.push(`location: "[[${all[(i * 31) % all.length]!.name}]]"`);
  if (random() < 0.3) lines.push(`session-date: 2024-0${1 + (i % 9)}-1${i % 10}`);
  if (random() < 0.2) lines.push(`level: ${1 + (i % 20)}`);
  if (random() < 0.2) lines.push('cssclasses:\n  - wide');
  lines.push('---', '');
  return lines.join('\n');
}

function body(i: number, note: Note, all: Note[], random: () => number, images: string[]): string {
  const out: string[] = [];
  const text = description(i);
  const target = (k: number) => all[(i * 7919 + k * 104729) % all.length]!;
  let links = 0;
  for (const block of text) {
    if (block.type.startsWith('heading')) {
      out.push(`## ${inline(block)}`);
      continue;
    }
    let paragraph = inline(block);
    // Two or three links per paragraph, of varied forms, placed after a sentence.
    const count = 1 + Math.floor(random() * 3);
    for (let k = 0; k < count; k++) paragraph += ` See ${link(note, target(links), i + links++)}.`;
    if (random() < 0.15) paragraph = paragraph.replace(/(\*\*[^*]+\*\*)/, '==$1==');
    out.push(paragraph);
  }
  out.push('## History', `${inline(text.at(-1)!)} ^quote1`);
  if (random() < 0.25) out.push(`> [!warning] Careful\n> ${inline(text[0]!)}\n> Ask about ${link(note, target(40), 0)}.`);
  if (random() < 0.2) out.push(`%% #secret ${note.name} is working for ${link(note, target(41), 1)}. %%`);
  if (random() < 0.1) out.push('<!-- GM only: the vault was dusty -->');
  if (random() < 0.2) out.push(`- [ ] Ask ${link(note, target(42), 2)} about the map\n- [x] Find the key\n- [ ] Report back`);
  if (random() < 0.15) out.push(`| Name | Role |\n| --- | --- |\n| ${note.name} | ${link(note, target(43), 0)} |`);
  if (images.length > 0 && i % 300 === 11) out.push(`![[${images[i % images.length]}|300]]`);
  return out.join('\n\n') + '\n';
}

/**
 * The files of a vault of `count` notes (plus templates, a canvas file and `imageCount` PNG
 * portraits); `badYaml`: about one note in a hundred has front matter strict YAML refuses.
 */
export function generateVault(count: number, image: Buffer, { imageCount = 8, badYaml = false } = {}): VaultFile[] {
  const all = notes(count);
  const random = prng(count);
  const images = Array.from({ length: imageCount }, (_, k) => `Portrait ${k + 1}.png`);
  const files: VaultFile[] = [];
  all.forEach((note, i) => {
    files.push({ name: `${note.folder}/${note.name}.md`, data: frontMatter(i, note, random, all, badYaml) + body(i, note, all, random, images) });
  });
  // Not notes of the campaign: templates, Obsidian's own settings, a canvas.
  files.push({ name: 'Templates/NPC Template.md', data: '---\ntags: [npc]\n---\n# {{title}}\n\n## Appearance\n' });
  files.push({ name: '.obsidian/app.json', data: '{}' });
  files.push({ name: 'Campaign board.canvas', data: '{"nodes":[]}' });
  for (const name of images) files.push({ name: `Attachments/${name}`, data: image });
  // Duplicate names (see notes()) land in the same folder sometimes: keep the first.
  const seen = new Set<string>();
  return files.filter((file) => (seen.has(file.name) ? false : (seen.add(file.name), true)));
}
