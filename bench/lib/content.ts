// Deterministic, realistic-looking campaign content for seeding: names that rarely collide and
// rich-text descriptions of a few paragraphs with some marks. The same seed gives the same text,
// so two runs seed byte-identical campaigns.

export type Leaf = { text: string; bold?: boolean; italic?: boolean; underline?: boolean };
export type Mention = { type: 'mention'; targetType: 'thing' | 'arc'; targetId: number; children: [Leaf] };
export type Block = { type: string; children: (Leaf | Mention)[] };
export type RichText = Block[];

/** mulberry32: small, fast, good enough to pick words. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

const FIRST = [
  'Aldric', 'Brenna', 'Corwin', 'Dagna', 'Elowen', 'Fenwick', 'Garrick', 'Hesper', 'Isolde', 'Jorvik',
  'Kaelen', 'Liora', 'Marek', 'Nessa', 'Orrin', 'Perrin', 'Quilla', 'Rowan', 'Sabine', 'Tobias',
  'Ulric', 'Vesna', 'Wendel', 'Yara', 'Zoltan', 'Anselm', 'Bryony', 'Cedric', 'Delphine', 'Emrys',
];
const LAST = [
  'Ashdown', 'Blackwood', 'Copperkettle', 'Duskmantle', 'Emberfall', 'Fairweather', 'Greymoor', 'Hollowell',
  'Ironside', 'Juniper', 'Kestrel', 'Longbarrow', 'Marsh', 'Nightingale', 'Oakheart', 'Pennyworth',
  'Quickwater', 'Ravenscar', 'Stonebridge', 'Thornfield', 'Underhill', 'Vale', 'Whitlock', 'Yarrow',
  'Zephyr', 'Amberlight', 'Brightwater', 'Coldridge', 'Dunmore', 'Everhart',
];
const PLACE_BASES = [
  'Harbor', 'Keep', 'Crossing', 'Hollow', 'Spire', 'Market', 'Abbey', 'Mill', 'Barrow', 'Ford',
  'Watch', 'Gate', 'Tavern', 'Mine', 'Lighthouse', 'Orchard', 'Bridge', 'Archive', 'Citadel', 'Grove',
];
const PLACE_ADJECTIVES = [
  'Sunken', 'Crooked', 'Silent', 'Gilded', 'Drowned', 'Old', 'Burning', 'Hidden', 'Windswept', 'Broken',
  'Whispering', 'Iron', 'Salt', 'Amber', 'Frozen', 'Hollow', 'Red', 'Shattered', 'Lantern', 'Thorn',
];
const ITEMS = [
  'Dagger', 'Lantern', 'Compass', 'Crown', 'Ledger', 'Amulet', 'Key', 'Mirror', 'Horn', 'Chalice',
  'Map', 'Ring', 'Tome', 'Banner', 'Bell', 'Cloak', 'Spear', 'Locket', 'Flute', 'Seal',
];
const FACTIONS = [
  'Circle', 'Guild', 'Order', 'Company', 'Brotherhood', 'Syndicate', 'Covenant', 'League', 'Court', 'Watch',
];
const EVENTS = ['Fall', 'Siege', 'Festival', 'Flood', 'Coronation', 'Betrayal', 'Eclipse', 'Plague', 'Duel', 'Wedding'];
const ARC_WORDS = [
  'Goblin Arrows', 'The Drowned Bell', 'Ashes of the Archive', 'A Crown of Salt', 'The Last Lighthouse',
  'Whispers in the Mill', 'The Iron Covenant', 'Blood on the Ford', 'The Frozen Gate', 'Lanterns at Dusk',
];

const NOUNS = ['ledger', 'map', 'debt', 'oath', 'letter', 'key', 'secret', 'shipment', 'relic', 'rumour', 'bargain', 'grudge'];
const ADJECTIVES = ['forgotten', 'stolen', 'cursed', 'sealed', 'half-burned', 'counterfeit', 'ancient', 'dangerous', 'unpaid', 'whispered'];

// Sentence templates; {N} a person, {P} a place, {n} a noun, {a} an adjective.
const SENTENCES = [
  '{N} keeps a {a} {n} hidden beneath the floorboards of the {P}.',
  'Travellers say the road to the {P} has not been safe since the last harvest.',
  'Nobody in the {P} will speak of what happened to {N}, not even for silver.',
  'The {n} bears a seal that only the old families still recognise.',
  '{N} owes the river captains more than a lifetime of wages could repay.',
  'At night, lights move along the cliffs above the {P}, and the dogs refuse to bark.',
  'A {a} {n} changed hands here three winters ago, and the buyer was never seen again.',
  '{N} is courteous to strangers, generous to children, and ruthless with anyone who lies to them.',
  'The walls of the {P} are older than the kingdom, and some say older than the hills.',
  'If the party asks about the {n}, {N} laughs a little too quickly.',
  'Rain has flooded the lower cellars, exposing carvings that no scholar can read.',
  'Whoever controls the {P} controls the only safe crossing for thirty miles.',
  'The temple records list {N} as dead, yet the handwriting on recent letters is unmistakable.',
  'Merchants pay a quiet toll to the watch, and the watch pays a quieter one to {N}.',
  'A faded mural shows a {a} {n} carried by a procession of masked figures.',
  'The innkeeper swears the cellar door was locked from the inside.',
  '{N} can be persuaded, but only by someone who has already lost something.',
  'Children in the {P} sing a rhyme about the {n}; the last verse is always left unsung.',
];

const HEADINGS = ['Appearance', 'Secrets', 'History', 'Rumours', 'Hooks', 'Notes for the GM'];

/**
 * A name for the index-th thing of a kind (0 person, 1 place, 2 item, 3 faction, 4 event), unique
 * within the kind: a mixed-radix walk over the word lists, then a numeral once they are used up.
 */
export function thingName(kind: number, index: number): string {
  const at = <T>(items: readonly T[], i: number): T => items[i % items.length] as T;
  const a = index % 20;
  const b = Math.floor(index / 20) % 20;
  const round = Math.floor(index / 400);
  const suffix = round === 0 ? '' : ` ${round + 1}`;
  switch (kind % 5) {
    case 0: {
      const personRound = Math.floor(index / 900);
      const name = `${at(FIRST, index % 30)} ${at(LAST, Math.floor(index / 30) % 30)}`;
      return personRound === 0 ? name : `${name} ${romanOrNumber(personRound + 1)}`;
    }
    case 1:
      return `The ${at(PLACE_ADJECTIVES, a)} ${at(PLACE_BASES, b)}${suffix}`;
    case 2:
      return `${at(LAST, a)}'s ${at(ITEMS, b)}${suffix}`;
    case 3:
      return `The ${at(PLACE_ADJECTIVES, a)} ${at(FACTIONS, b)}${round === 0 && b < 10 ? '' : ` ${Math.floor(index / 200) + 1}`}`;
    default:
      return `The ${at(EVENTS, a)} at the ${at(PLACE_ADJECTIVES, b)} ${at(PLACE_BASES, a)}${suffix}`;
  }
}

function romanOrNumber(n: number): string {
  const romans = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII'];
  return romans[n - 1] ?? String(n);
}

export function arcName(index: number): string {
  const base = ARC_WORDS[index % ARC_WORDS.length] ?? 'An Arc';
  const round = Math.floor(index / ARC_WORDS.length);
  return round === 0 ? base : `${base}, Part ${round + 1}`;
}

function sentence(random: () => number): Leaf[] {
  const person = `${pick(random, FIRST)} ${pick(random, LAST)}`;
  const place = `${pick(random, PLACE_ADJECTIVES)} ${pick(random, PLACE_BASES)}`;
  const template = pick(random, SENTENCES);
  const leaves: Leaf[] = [];
  // Names in bold, the odd noun in italics: the marks a game master actually uses.
  for (const part of template.split(/(\{[NPna]\})/)) {
    if (part === '{N}') leaves.push({ text: person, bold: true });
    else if (part === '{P}') leaves.push({ text: place });
    else if (part === '{n}') leaves.push(random() < 0.3 ? { text: pick(random, NOUNS), italic: true } : { text: pick(random, NOUNS) });
    else if (part === '{a}') leaves.push({ text: pick(random, ADJECTIVES) });
    else if (part !== '') leaves.push({ text: part });
  }
  return leaves;
}

/** Adjacent unmarked leaves merged, as an editor would store them. */
function merge(leaves: Leaf[]): Leaf[] {
  const out: Leaf[] = [];
  for (const leaf of leaves) {
    const last = out.at(-1);
    const plain = (l: Leaf) => !l.bold && !l.italic && !l.underline;
    if (last && plain(last) && plain(leaf)) last.text += leaf.text;
    else out.push({ ...leaf });
  }
  return out;
}

/** A paragraph of `sentences` sentences. */
function paragraph(random: () => number, sentences: number): Block {
  const leaves: Leaf[] = [];
  for (let i = 0; i < sentences; i++) {
    if (i > 0) leaves.push({ text: ' ' });
    leaves.push(...sentence(random));
  }
  return { type: 'paragraph', children: merge(leaves) };
}

/** A description of a few paragraphs (about 1 KiB of JSON), sometimes under a heading. */
export function description(seed: number): RichText {
  const random = prng(seed * 7919 + 17);
  const blocks: RichText = [];
  if (random() < 0.4) blocks.push({ type: 'heading-two', children: [{ text: pick(random, HEADINGS) }] });
  const paragraphs = 2 + Math.floor(random() * 3);
  for (let i = 0; i < paragraphs; i++) blocks.push(paragraph(random, 2 + Math.floor(random() * 3)));
  return blocks;
}

/**
 * A description of about `bytes` bytes of JSON (2 KiB by default: a realistic edit of an NPC or a
 * place): a heading and paragraphs of 2–4 sentences, added until the JSON reaches `bytes`, so every
 * seed gives a text within one paragraph of the size.
 */
export function sizedDescription(seed: number, bytes = 2048): RichText {
  const random = prng(seed * 15_485_863 + 29);
  const blocks: RichText = [{ type: 'heading-two', children: [{ text: pick(random, HEADINGS) }] }];
  while (JSON.stringify(blocks).length < bytes - 120) blocks.push(paragraph(random, 2 + Math.floor(random() * 3)));
  return blocks;
}

/** A short rich-text field (one paragraph), for the narrative fields of an arc. */
export function shortText(seed: number): RichText {
  const random = prng(seed * 104729 + 3);
  return [paragraph(random, 1 + Math.floor(random() * 3))];
}

/**
 * A paragraph that mentions each target: by a `mention` element, and every other one also by a
 * `[[thing#slug]]` text link (the seed system's convention), as a game master's notes would.
 */
export function mentionParagraph(targets: { id: number; slug: string }[]): Block {
  const children: (Leaf | Mention)[] = [{ text: 'Also involved: ' }];
  targets.forEach((target, i) => {
    if (i > 0) children.push({ text: i % 2 === 0 ? ', ' : ` (see [[thing#${target.slug}]]), ` });
    children.push({ type: 'mention', targetType: 'thing', targetId: target.id, children: [{ text: '' }] });
  });
  children.push({ text: '.' });
  return { type: 'paragraph', children };
}

export type PropertyLink = { targetType: 'thing' | 'arc'; targetId: number };
export type Property = { key: string; value: string | number | boolean | null | PropertyLink | (string | number | PropertyLink)[]; gmOnly: boolean };

const SPECIES = ['human', 'dwarf', 'elf', 'halfling', 'gnome', 'orc', 'tiefling', 'dragonborn'];
const STATUSES = ['alive', 'missing', 'dead', 'imprisoned', 'exiled'];

/**
 * `count` properties of mixed kinds for record `seed` (text, numbers, a boolean, a date, a list of
 * text, GM-only notes) with two link properties to `linkTargets` (value null when none is given),
 * in a fixed order of ten keys repeated with a suffix past ten. Deterministic like the rest.
 */
export function properties(seed: number, count: number, linkTargets: readonly number[]): Property[] {
  const random = prng(seed * 7919 + 13);
  const link = (n: number): PropertyLink | null => (linkTargets.length === 0 ? null : { targetType: 'thing', targetId: linkTargets[n % linkTargets.length]! });
  const makers: ((random: () => number) => Property['value'])[] = [
    (r) => pick(r, SPECIES),
    (r) => Math.floor(r() * 20) + 1,
    (r) => pick(r, STATUSES),
    () => link(seed),
    (r) => `${1200 + Math.floor(r() * 300)}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`,
    (r) => r() < 0.5,
    () => {
      const first = link(seed + 1);
      const second = link(seed + 2);
      return first && second ? [first, second] : null;
    },
    (r) => [pick(r, NOUNS), pick(r, NOUNS), pick(r, NOUNS)],
    (r) => Math.round(r() * 10_000) / 100,
    (r) => `Owes the ${pick(r, FACTIONS)} a ${pick(r, NOUNS)}; ${pick(r, NOUNS)} hidden near the ${pick(r, PLACE_BASES).toLowerCase()}.`,
  ];
  const keys = ['species', 'level', 'status', 'location', 'born', 'met the party', 'allies', 'wants', 'gold', 'gm notes'];
  return Array.from({ length: count }, (_, i) => ({
    key: i < keys.length ? keys[i]! : `${keys[i % keys.length]!} ${Math.floor(i / keys.length) + 1}`,
    value: makers[i % makers.length]!(random),
    gmOnly: i % keys.length === keys.length - 1,
  }));
}

/** Three tags of record `seed`, from a small vocabulary (so tags repeat across records as real ones do). */
export function tags(seed: number): string[] {
  const random = prng(seed * 104_729 + 7);
  return [...new Set([pick(random, FACTIONS), pick(random, STATUSES), pick(random, PLACE_ADJECTIVES)].map((tag) => tag.toLowerCase()))];
}
