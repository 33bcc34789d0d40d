import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RICH_TEXT_MARKS,
  RICH_TEXT_MAX_BYTES,
  RICH_TEXT_MAX_DEPTH,
  RICH_TEXT_MAX_ISSUES,
  emptyRichText,
  parseStoredRichText,
  serializeRichText,
  validateRichText,
  type RichText,
  type RichTextBlock,
  type RichTextLeaf,
  type RichTextNode,
} from '../../src/domain/rich-text.js';
import { InputChecker } from '../../src/domain/input.js';

const BASE = '/newThing/description';

function paragraph(...children: unknown[]): Record<string, unknown> {
  return { type: 'paragraph', children };
}

// A chain of `levels` nested blocks, the innermost holding one text leaf.
function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = paragraph({ text: 'deep' });
  for (let i = 1; i < levels; i += 1) node = { type: 'quote', children: [node] };
  return node;
}

function blockPath(base: string, depth: number): string {
  return `${base}/0${'/children/0'.repeat(depth - 1)}`;
}

describe('emptyRichText', () => {
  it('is the empty paragraph, valid, and a fresh copy each call', () => {
    const first = emptyRichText();
    expect(first).toEqual([{ type: 'paragraph', children: [{ text: '' }] }]);
    expect(validateRichText(first, BASE)).toEqual([]);
    first[0]!.children.push({ text: 'changed' });
    expect(emptyRichText()).toEqual([{ type: 'paragraph', children: [{ text: '' }] }]);
  });
});

describe('validateRichText: examples', () => {
  it('accepts a document with marks, extra keys, nesting and empty children', () => {
    const doc = [
      { type: 'heading', level: 2, children: [{ text: 'The ', bold: true }, { text: 'Keep', italic: false }] },
      {
        type: 'paragraph',
        children: [
          { text: 'See ' },
          { type: 'link', url: 'https://example.com', children: [{ text: 'map', underline: true, code: false }] },
          { text: '', strikethrough: true, comment: { any: ['json', 1, null] } },
        ],
      },
      { type: 'image', assetId: 12, caption: null, children: [] },
      { type: 'list', bold: 'blocks may carry any key', children: [{ type: 'list-item', children: [{ text: 'x' }] }] },
    ];
    expect(validateRichText(doc, BASE)).toEqual([]);
  });

  it('reports a non-string text at the exact pointer', () => {
    expect(validateRichText([{ type: 'paragraph', children: [{ text: 5 }] }], BASE)).toEqual([
      { path: '/newThing/description/0/children/0/text', message: 'must be a string' },
    ]);
  });

  it.each([null, undefined, {}, 'text', 5, true, { type: 'paragraph', children: [] }])(
    'rejects the non-array %j at the base pointer',
    (value) => {
      expect(validateRichText(value, BASE)).toEqual([{ path: BASE, message: 'must be an array of blocks' }]);
    },
  );

  it('rejects an empty top-level array', () => {
    expect(validateRichText([], BASE)).toEqual([{ path: BASE, message: 'must contain at least one block' }]);
  });

  it.each([null, [], [paragraph()], 5, 'p', false])('rejects the top-level node %j', (node) => {
    expect(validateRichText([paragraph(), node], BASE)).toEqual([{ path: `${BASE}/1`, message: 'must be a block object' }]);
  });

  it.each([null, [], [{ text: 'a' }], 5, 'p', true])('rejects the nested node %j', (node) => {
    expect(validateRichText([paragraph({ text: 'a' }, node)], BASE)).toEqual([
      { path: `${BASE}/0/children/1`, message: 'must be a block or text leaf object' },
    ]);
  });

  it('rejects a text leaf at the top level', () => {
    const issues = validateRichText([paragraph(), { text: 'loose' }], BASE);
    expect(issues).toEqual([{ path: `${BASE}/1`, message: expect.stringContaining('must be a block') as unknown }]);
  });

  it.each([
    [{ children: [] }, 'is required'],
    [{ type: undefined, children: [] }, 'is required'],
    [{ type: '', children: [] }, 'must not be empty'],
    [{ type: 7, children: [] }, 'must be a string'],
    [{ type: null, children: [] }, 'must be a string'],
    [{ type: ['p'], children: [] }, 'must be a string'],
  ])('rejects the block type in %j', (block, message) => {
    expect(validateRichText([block], BASE)).toEqual([{ path: `${BASE}/0/type`, message }]);
  });

  it.each([
    [{ type: 'p' }, 'is required'],
    [{ type: 'p', children: null }, 'must be an array'],
    [{ type: 'p', children: {} }, 'must be an array'],
    [{ type: 'p', children: 'text' }, 'must be an array'],
    [{ type: 'p', children: { 0: { text: '' }, length: 1 } }, 'must be an array'],
  ])('rejects the block children in %j', (block, message) => {
    expect(validateRichText([block], BASE)).toEqual([{ path: `${BASE}/0/children`, message }]);
  });

  it('allows empty children', () => {
    expect(validateRichText([paragraph(), { type: 'divider', children: [] }], BASE)).toEqual([]);
  });

  it.each([5, null, undefined, true, ['a'], { value: 'a' }])('rejects the leaf text %j', (text) => {
    expect(validateRichText([paragraph({ text })], BASE)).toEqual([
      { path: `${BASE}/0/children/0/text`, message: 'must be a string' },
    ]);
  });

  it.each(RICH_TEXT_MARKS)('rejects a non-boolean %s mark and accepts a boolean one', (mark) => {
    for (const bad of ['true', 1, 0, null, {}, []]) {
      expect(validateRichText([paragraph({ text: 'a', [mark]: bad })], BASE)).toEqual([
        { path: `${BASE}/0/children/0/${mark}`, message: 'must be a boolean' },
      ]);
    }
    expect(validateRichText([paragraph({ text: 'a', [mark]: true }, { text: 'b', [mark]: false })], BASE)).toEqual([]);
  });

  it('keeps other keys on a leaf as given', () => {
    expect(validateRichText([paragraph({ text: 'a', color: 'red', meta: { deep: [1, { x: null }] } })], BASE)).toEqual([]);
  });

  it('rejects children or type on a leaf', () => {
    expect(validateRichText([paragraph({ text: 'a', children: [] })], BASE)).toEqual([
      { path: `${BASE}/0/children/0/children`, message: 'must not be present on a text leaf' },
    ]);
    expect(validateRichText([paragraph({ text: 'a', type: 'paragraph' })], BASE)).toEqual([
      { path: `${BASE}/0/children/0/type`, message: 'must not be present on a text leaf' },
    ]);
  });

  it('reports every problem of a node, in document order', () => {
    const doc = [{ type: '', children: [{ text: 1, bold: 'yes' }, null] }, { children: 3 }];
    expect(validateRichText(doc, '')).toEqual([
      { path: '/0/type', message: 'must not be empty' },
      { path: '/0/children/0/text', message: 'must be a string' },
      { path: '/0/children/0/bold', message: 'must be a boolean' },
      { path: '/0/children/1', message: 'must be a block or text leaf object' },
      { path: '/1/type', message: 'is required' },
      { path: '/1/children', message: 'must be an array' },
    ]);
  });

  it('reports at most the issue limit', () => {
    const issues = validateRichText(Array.from({ length: 1_000 }, () => null), BASE);
    expect(issues).toHaveLength(RICH_TEXT_MAX_ISSUES);
    expect(issues[0]).toEqual({ path: `${BASE}/0`, message: 'must be a block object' });
  });

  it('stops reading a hostile document once the issue limit is reached', () => {
    // A request body can hold hundreds of thousands of bad nodes: the walk must cost only the nodes
    // up to the limit, not one allocation per node of the whole document.
    const read = new Set<string>();
    const counting = (nodes: unknown[]) =>
      new Proxy(nodes, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) read.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const top = validateRichText(counting(Array.from({ length: 100_000 }, () => 7)), BASE);
    expect(top).toHaveLength(RICH_TEXT_MAX_ISSUES);
    expect(read.size).toBe(RICH_TEXT_MAX_ISSUES);

    read.clear();
    const leaves = validateRichText([paragraph({ text: 'fine' }), { type: 'p', children: counting(Array.from({ length: 100_000 }, () => ({ text: 1 }))) }], BASE);
    expect(leaves).toHaveLength(RICH_TEXT_MAX_ISSUES);
    expect(leaves[0]).toEqual({ path: `${BASE}/1/children/0/text`, message: 'must be a string' });
    expect(read.size).toBe(RICH_TEXT_MAX_ISSUES);
  });
});

describe('validateRichText: callouts, highlights and tasks', () => {
  const callout = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'callout', ...fields, children });
  const item = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'list-item', ...fields, children });

  it('accepts them as an Obsidian vault and the editor write them', () => {
    const doc = [
      callout({ kind: 'warning', title: 'The bridge is out' }, paragraph({ text: 'Take the ford.' })),
      callout({ kind: 'note' }, paragraph({ text: 'No title.' }), callout({ kind: 'tip', title: '' }, paragraph({ text: 'Nested.' }))),
      callout({ kind: 'k'.repeat(64), title: 'é'.repeat(500) }, paragraph({ text: 'At the limits.' })),
      callout({ kind: '🐉'.repeat(64) }, paragraph({ text: 'Characters, not UTF-16 units.' })),
      paragraph({ text: 'Strahd', highlight: true }, { text: ' is ', highlight: false }, { text: 'here', highlight: true, bold: true }),
      { type: 'bulleted-list', children: [item({ checked: false }, { text: 'Buy rope' }), item({ checked: true }, { text: 'Find the map' }), item({}, { text: 'Not a task' })] },
      { type: 'numbered-list', children: [item({ checked: true, isSecret: true }, paragraph({ text: 'Secret task' }))] },
    ];
    expect(validateRichText(doc, BASE)).toEqual([]);
  });

  it.each<[string, unknown, string, string]>([
    ['a callout without kind', callout({}, paragraph({ text: 'x' })), '/0/kind', 'is required on a callout'],
    ['a callout with an empty kind', callout({ kind: '' }), '/0/kind', 'must not be empty'],
    ['a callout with a numeric kind', callout({ kind: 3 }), '/0/kind', 'must be a string'],
    ['a callout with a null kind', callout({ kind: null }), '/0/kind', 'must be a string'],
    ['a callout with a kind of 65 characters', callout({ kind: 'k'.repeat(65) }), '/0/kind', 'must be at most 64 characters'],
    ['a callout with a title of 501 characters', callout({ kind: 'note', title: 't'.repeat(501) }), '/0/title', 'must be at most 500 characters'],
    ['a callout with a null title', callout({ kind: 'note', title: null }), '/0/title', 'must be a string'],
    ['a callout with a rich title', callout({ kind: 'note', title: [{ text: 'x' }] }), '/0/title', 'must be a string'],
    ['a task checked as a string', { type: 'bulleted-list', children: [item({ checked: 'true' })] }, '/0/children/0/checked', 'must be a boolean'],
    ['a task checked as 1', { type: 'bulleted-list', children: [item({ checked: 1 })] }, '/0/children/0/checked', 'must be a boolean'],
    ['checked on a paragraph', { type: 'paragraph', checked: true, children: [{ text: 'x' }] }, '/0/checked', 'must only be present on a list-item'],
    ['checked on a list', { type: 'bulleted-list', checked: false, children: [] }, '/0/checked', 'must only be present on a list-item'],
    ['checked on a text leaf', paragraph({ text: 'x', checked: true }), '/0/children/0/checked', 'must only be present on a list-item'],
    ['a highlight that is not a boolean', paragraph({ text: 'x', highlight: 'yes' }), '/0/children/0/highlight', 'must be a boolean'],
  ])('rejects %s with a pointer at it', (_name, block, path, message) => {
    expect(validateRichText([block], BASE)).toEqual([{ path: BASE + path, message }]);
  });

  it('checks a callout at any depth, inside a list item or a secret block', () => {
    const doc = [{ type: 'bulleted-list', isSecret: true, children: [item({}, callout({ kind: '' }, paragraph({ text: 'x' })))] }];
    expect(validateRichText(doc, BASE)).toEqual([{ path: `${BASE}/0/children/0/children/0/kind`, message: 'must not be empty' }]);
  });

  it('keeps kind and title on other elements as given (they mean nothing there)', () => {
    expect(validateRichText([{ type: 'paragraph', kind: 5, title: null, children: [{ text: 'x' }] }], BASE)).toEqual([]);
  });
});

describe('validateRichText: nesting depth', () => {
  it(`accepts ${RICH_TEXT_MAX_DEPTH} levels of blocks, text included`, () => {
    expect(validateRichText([nested(RICH_TEXT_MAX_DEPTH)], BASE)).toEqual([]);
  });

  it(`rejects a block at depth ${RICH_TEXT_MAX_DEPTH + 1} at its own pointer`, () => {
    expect(validateRichText([nested(RICH_TEXT_MAX_DEPTH + 1)], BASE)).toEqual([
      { path: blockPath(BASE, RICH_TEXT_MAX_DEPTH + 1), message: 'must not nest blocks deeper than 16 levels' },
    ]);
  });

  it('survives 100,000 levels of nesting built in memory', () => {
    let node: unknown = paragraph({ text: 'bottom' });
    for (let i = 0; i < 100_000; i += 1) node = paragraph(node);
    const issues = validateRichText([node], BASE);
    expect(issues).toEqual([
      { path: blockPath(BASE, RICH_TEXT_MAX_DEPTH + 1), message: 'must not nest blocks deeper than 16 levels' },
    ]);
  });

  it('survives 100,000 levels of nesting parsed from JSON, of blocks and of bare arrays', () => {
    const levels = 100_000;
    const blocks = `${'{"type":"p","children":['.repeat(levels)}${']}'.repeat(levels)}`;
    expect(validateRichText(JSON.parse(`[${blocks}]`), BASE)).toEqual([
      { path: blockPath(BASE, RICH_TEXT_MAX_DEPTH + 1), message: 'must not nest blocks deeper than 16 levels' },
    ]);
    const arrays = `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(validateRichText(JSON.parse(arrays), BASE)).toEqual([{ path: `${BASE}/0`, message: 'must be a block object' }]);
  });

  it('rejects, without throwing, a value it cannot serialise', () => {
    const cyclic: Record<string, unknown> = { type: 'p', children: [] };
    (cyclic.children as unknown[]).push(cyclic);
    expect(validateRichText([cyclic], BASE)).toEqual([
      { path: blockPath(BASE, RICH_TEXT_MAX_DEPTH + 1), message: 'must not nest blocks deeper than 16 levels' },
    ]);
    expect(validateRichText([{ type: 'p', children: [], big: 10n }], BASE)).toEqual([
      { path: BASE, message: 'must be serialisable as JSON' },
    ]);
    let deepCaption: unknown = [];
    for (let i = 0; i < 100_000; i += 1) deepCaption = [deepCaption];
    expect(validateRichText([{ type: 'image', caption: deepCaption, children: [] }], BASE)).toEqual([
      { path: BASE, message: 'must be serialisable as JSON' },
    ]);
  });

  it('does not throw on a hostile object', () => {
    const hostile = {
      type: 'p',
      get children(): never {
        throw new Error('boom');
      },
    };
    expect(validateRichText([hostile], BASE)).toEqual([{ path: BASE, message: 'must be a rich-text value' }]);
  });
});

describe('validateRichText: size', () => {
  const doc = (text: string): RichText => [{ type: 'paragraph', children: [{ text }] }];
  const overhead = Buffer.byteLength(JSON.stringify(doc('')), 'utf8');
  const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

  it('accepts exactly the limit and rejects one byte more', () => {
    const atLimit = doc('a'.repeat(RICH_TEXT_MAX_BYTES - overhead));
    expect(bytes(atLimit)).toBe(RICH_TEXT_MAX_BYTES);
    expect(validateRichText(atLimit, BASE)).toEqual([]);
    const over = doc('a'.repeat(RICH_TEXT_MAX_BYTES - overhead + 1));
    expect(bytes(over)).toBe(RICH_TEXT_MAX_BYTES + 1);
    expect(validateRichText(over, BASE)).toEqual([{ path: BASE, message: 'must be at most 262144 bytes of JSON' }]);
  });

  it('counts UTF-8 bytes of the JSON text, not characters', () => {
    const room = RICH_TEXT_MAX_BYTES - overhead; // 'é' is 2 bytes, '€' 3, '"' is escaped to 2
    const atLimit = doc(`${'é'.repeat(Math.floor(room / 2) - 3)}€"${'a'.repeat(room - 2 * (Math.floor(room / 2) - 3) - 5)}`);
    expect(bytes(atLimit)).toBe(RICH_TEXT_MAX_BYTES);
    expect(validateRichText(atLimit, BASE)).toEqual([]);
    const over = doc(`${'é'.repeat(Math.floor(room / 2) + 1)}`);
    expect(JSON.stringify(over).length).toBeLessThan(RICH_TEXT_MAX_BYTES);
    expect(validateRichText(over, BASE)).toHaveLength(1);
  });

  it('counts extra keys too', () => {
    const big = [{ type: 'image', caption: 'x'.repeat(RICH_TEXT_MAX_BYTES), children: [] }];
    expect(validateRichText(big, BASE)).toEqual([{ path: BASE, message: 'must be at most 262144 bytes of JSON' }]);
  });
});

describe('validateRichText: __proto__ and inherited keys', () => {
  it('treats an own __proto__ key from JSON.parse as an ordinary extra key', () => {
    const doc: unknown = JSON.parse(
      '[{"type":"p","__proto__":{"type":5,"children":7},"children":[{"text":"a","__proto__":{"bold":"yes","text":1}}]}]',
    );
    expect(validateRichText(doc, BASE)).toEqual([]);
    expect(({} as Record<string, unknown>).bold).toBeUndefined();
    expect(Object.getPrototypeOf((doc as RichText)[0])).toBe(Object.prototype);
  });

  it('does not take type, children or text from a prototype', () => {
    const inherited = Object.create({ type: 'p', children: [] }) as unknown;
    expect(validateRichText([inherited], BASE)).toEqual([
      { path: `${BASE}/0/type`, message: 'is required' },
      { path: `${BASE}/0/children`, message: 'is required' },
    ]);
    const notALeaf = Object.create({ text: 'a' }) as unknown;
    expect(validateRichText([paragraph(notALeaf)], BASE)).toEqual([
      { path: `${BASE}/0/children/0/type`, message: 'is required' },
      { path: `${BASE}/0/children/0/children`, message: 'is required' },
    ]);
  });

  it('copes with keys that shadow Object.prototype methods and null-prototype objects', () => {
    const leaf = Object.assign(Object.create(null) as Record<string, unknown>, { text: 'a', hasOwnProperty: 1 });
    const doc = [{ type: 'p', constructor: 'x', toString: 5, children: [leaf] }];
    expect(validateRichText(doc, BASE)).toEqual([]);
  });
});

describe('parseStoredRichText and serializeRichText', () => {
  it('reads a never-written field as a fresh empty paragraph', () => {
    const first = parseStoredRichText(null);
    expect(first).toEqual(emptyRichText());
    expect(parseStoredRichText(null)).not.toBe(first);
    expect(parseStoredRichText('null')).toEqual(emptyRichText());
  });

  it('round-trips a document, own __proto__ keys included', () => {
    const stored = '[{"type":"p","__proto__":{"x":1},"children":[{"text":"a","bold":true}]}]';
    const doc = parseStoredRichText(stored);
    expect(Object.hasOwn(doc[0]!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(doc[0])).toBe(Object.prototype);
    expect(serializeRichText(doc)).toBe(stored);
  });
});

// ---- Property tests ----------------------------------------------------------------------------

type Json = Record<string, unknown>;
type Entries = [string, unknown][];

// `checked` means a task on a list item only; `kind` and `title` are checked on callouts (below).
const BLOCK_RESERVED = new Set(['type', 'children', 'text', 'checked']);
const LEAF_RESERVED = new Set<string>(['type', 'children', 'text', 'checked', ...RICH_TEXT_MARKS]);
const someKey = fc.oneof(
  fc.constantFrom('url', 'assetId', 'caption', 'level', '__proto__', 'constructor', 'hasOwnProperty', ...RICH_TEXT_MARKS),
  fc.string({ maxLength: 8 }),
);
const entries = (reserved: Set<string>): fc.Arbitrary<Entries> =>
  fc.array(
    fc.tuple(
      someKey.filter((k) => !reserved.has(k)),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    { maxLength: 3 },
  );

// defineProperty, so a generated `__proto__` key becomes an own property as JSON.parse would make it.
function withEntries<T extends Json>(target: T, extra: Entries): T {
  for (const [key, value] of extra) {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return target;
}

const marks = fc.record(Object.fromEntries(RICH_TEXT_MARKS.map((mark) => [mark, fc.boolean()])), {
  requiredKeys: [],
});
const leaf: fc.Arbitrary<RichTextLeaf> = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 12 }), marks, entries(LEAF_RESERVED))
  .map(([text, leafMarks, extra]) => withEntries({ ...leafMarks, text }, extra));
const blockType = fc.oneof(
  fc.constantFrom('paragraph', 'heading', 'quote', 'list', 'list-item', 'link', 'image'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).filter((type) => type !== 'callout'),
);

// Blocks are a quarter of the children, so the expected size stays small; depth is capped.
function blockAt(depth: number): fc.Arbitrary<RichTextBlock> {
  const child: fc.Arbitrary<RichTextNode> =
    depth >= RICH_TEXT_MAX_DEPTH ? leaf : fc.oneof({ arbitrary: leaf, weight: 3 }, { arbitrary: blockAt(depth + 1), weight: 1 });
  return fc
    .tuple(blockType, fc.array(child, { maxLength: 4 }), entries(BLOCK_RESERVED))
    .map(([type, children, extra]) => withEntries({ type, children }, extra));
}

// A spine of 1 to 16 nested blocks (often exactly 16) with leaves alongside, so the depth limit is
// reached often rather than by chance.
const spine: fc.Arbitrary<RichTextBlock> = fc
  .oneof(fc.constant(RICH_TEXT_MAX_DEPTH), fc.integer({ min: 1, max: RICH_TEXT_MAX_DEPTH }))
  .chain((levels) =>
    fc.array(fc.tuple(blockType, fc.array(leaf, { maxLength: 2 }), entries(BLOCK_RESERVED)), {
      minLength: levels,
      maxLength: levels,
    }),
  )
  .map((levels) =>
    levels.reduceRight<RichTextBlock | undefined>((inner, [type, leaves, extra]) => {
      const children: RichTextNode[] = inner === undefined ? leaves : [...leaves, inner];
      return withEntries({ type, children }, extra);
    }, undefined)!,
  );

const documents: fc.Arbitrary<RichText> = fc.array(fc.oneof(blockAt(1), spine), { minLength: 1, maxLength: 4 });
const basePointers = fc.constantFrom('', BASE, '/updatedArc/a~1b~0c');

interface NodeRef {
  tokens: (string | number)[];
  kind: 'block' | 'leaf';
  depth: number;
}

function collectNodes(doc: RichText): NodeRef[] {
  const found: NodeRef[] = [];
  const visit = (node: RichTextNode, tokens: (string | number)[], depth: number): void => {
    if (Object.hasOwn(node, 'text')) {
      found.push({ tokens, kind: 'leaf', depth });
      return;
    }
    found.push({ tokens, kind: 'block', depth });
    (node as RichTextBlock).children.forEach((child, i) => visit(child, [...tokens, 'children', i], depth + 1));
  };
  doc.forEach((block, i) => visit(block, [i], 1));
  return found;
}

function pointer(tokens: (string | number)[]): string {
  return tokens.map((t) => `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function lookup(root: unknown, tokens: (string | number)[]): Json {
  return tokens.reduce<unknown>((node, token) => (node as Json)[token], root) as Json;
}

type Mutation = (doc: unknown[], ref: NodeRef, pick: number) => { doc: unknown; target: (string | number)[] };

function replaceNode(replacement: unknown): Mutation {
  return (doc, ref) => {
    const parent = lookup(doc, ref.tokens.slice(0, -1));
    parent[ref.tokens.at(-1)!] = replacement;
    return { doc, target: ref.tokens };
  };
}

function setField(field: string, value: unknown, remove = false): Mutation {
  return (doc, ref) => {
    const node = lookup(doc, ref.tokens);
    if (remove) delete node[field];
    else node[field] = value;
    return { doc, target: [...ref.tokens, field] };
  };
}

const anyNodeMutations: Mutation[] = [null, [], [{ text: 'x' }], 5, 'node', true].map(replaceNode);

const blockMutations: Mutation[] = [
  setField('type', undefined, true),
  setField('type', ''),
  setField('type', 42),
  setField('children', undefined, true),
  setField('children', null),
  setField('children', { text: 'x' }),
  setField('children', 'x'),
  // Hang a chain below the block whose innermost block sits at depth 17.
  (doc, ref) => {
    const chainLength = RICH_TEXT_MAX_DEPTH + 1 - ref.depth;
    const children = lookup(doc, ref.tokens).children as unknown[];
    const target: (string | number)[] = [...ref.tokens, 'children', children.length];
    for (let i = 1; i < chainLength; i += 1) target.push('children', 0);
    children.push(nested(chainLength));
    return { doc, target };
  },
];

const leafMutations: Mutation[] = [
  setField('text', 5),
  setField('text', null),
  setField('children', []),
  setField('type', 'paragraph'),
  ...RICH_TEXT_MARKS.map((mark) => setField(mark, 'true')),
];

const documentMutations: Mutation[] = [
  () => ({ doc: [], target: [] }),
  (doc, _ref, pick) => {
    const index = pick % (doc.length + 1);
    doc.splice(index, 0, { text: 'loose' });
    return { doc, target: [index] };
  },
];

// An issue points at the mutation when its path is the target itself or one of its ancestors; a
// mutation that replaces a subtree may also be reported inside it.
function related(issuePath: string, targetPath: string): boolean {
  return (
    issuePath === targetPath || targetPath.startsWith(`${issuePath}/`) || issuePath.startsWith(`${targetPath}/`)
  );
}

describe('validateRichText: properties', () => {
  it('accepts every well-formed document, also after a JSON round trip', () => {
    fc.assert(
      fc.property(documents, basePointers, (doc, base) => {
        expect(validateRichText(doc, base)).toEqual([]);
        expect(validateRichText(JSON.parse(serializeRichText(doc)), base)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every document broken by one mutation, pointing at the mutated node', () => {
    const scenario = fc.tuple(documents, fc.nat(), fc.nat(), fc.nat(), basePointers);
    fc.assert(
      fc.property(scenario, ([generated, nodePick, mutationPick, extraPick, base]) => {
        const doc = JSON.parse(serializeRichText(generated)) as unknown[];
        const nodes = collectNodes(generated);
        const ref = nodes[nodePick % nodes.length]!;
        const applicable = [
          ...anyNodeMutations,
          ...(ref.kind === 'block' ? blockMutations : leafMutations),
          ...documentMutations,
        ];
        const mutation = applicable[mutationPick % applicable.length]!;
        const { doc: mutated, target } = mutation(doc, ref, extraPick);
        const targetPath = base + pointer(target);

        const issues = validateRichText(mutated, base);
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.some((issue) => issue.path === targetPath || targetPath.startsWith(`${issue.path}/`))).toBe(true);
        for (const issue of issues) expect(related(issue.path, targetPath)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('InputChecker.richTextJson', () => {
  it('stores what richText then serializeRichText would, with the same issues, for any document or value', () => {
    const values = fc.oneof(documents, fc.jsonValue({ maxDepth: 3 }));
    fc.assert(
      fc.property(values, basePointers, (value, base) => {
        const once = new InputChecker();
        const twice = new InputChecker();
        expect(once.richTextJson(value, base)).toBe(serializeRichText(twice.richText(value, base)));
        expect(once.issues).toEqual(twice.issues);
      }),
      { numRuns: 300 },
    );
  });

  it('stores the empty text for a value too large, as richText does', () => {
    const big = [paragraph({ text: 'x'.repeat(RICH_TEXT_MAX_BYTES) })];
    const checker = new InputChecker();
    expect(checker.richTextJson(big, BASE)).toBe(serializeRichText(emptyRichText()));
    expect(checker.issues).toEqual([{ path: BASE, message: `must be at most ${RICH_TEXT_MAX_BYTES} bytes of JSON` }]);
  });
});
