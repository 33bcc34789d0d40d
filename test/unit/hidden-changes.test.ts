// What a game master's hidden edits may change (CONTRACT "Secrets that hold"), over documents with
// secrets at any depth: a GM-only record's new slug is written only inside secret elements, and an
// edit made only inside secret elements is no change players see.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { playersSeeChange } from '../../src/access/players-see.js';
import type { RichText } from '../../src/domain/rich-text.js';
import { rewriteMentionSlugs } from '../../src/render/index.js';
import { redactNodes, walkWithSecrecy } from '../../src/vocabulary/index.js';

const LINK = '[[thing#old-slug]]';
const leafArb = fc.record({
  text: fc.constantFrom(LINK, `see ${LINK} now`, 'plain words', `[[arc#old-slug]]`, `${LINK}${LINK}`),
  code: fc.boolean(),
});
const { node: nodeArb } = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('paragraph'), isSecret: fc.boolean(), children: fc.array(leafArb, { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constantFrom('bulleted-list', 'list-item', 'block-quote', 'table-cell'), isSecret: fc.boolean(), children: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
  ),
}));
const docArb = fc.array(nodeArb, { minLength: 1, maxLength: 4 }) as fc.Arbitrary<RichText>;

/** Every leaf text inside a secret element, outside code. */
function secretTexts(doc: RichText): string[] {
  const out: string[] = [];
  walkWithSecrecy(doc, (node, secret) => {
    const leaf = node as { text?: unknown; code?: unknown };
    if (secret && typeof leaf.text === 'string' && leaf.code !== true) out.push(leaf.text);
  });
  return out;
}

describe('a GM-only record’s slug change', () => {
  it('rewrites [[thing#old]] inside secret elements at any depth and nowhere else', () => {
    let rewritten = 0;
    fc.assert(
      fc.property(docArb, (doc) => {
        const result = rewriteMentionSlugs(doc, 'thing', 'old-slug', 'new-slug', { onlyInSecret: true }) ?? doc;
        // What players read is exactly what it was.
        expect(redactNodes(result)).toEqual(redactNodes(doc));
        // What game masters read inside secrets follows the new slug.
        for (const text of secretTexts(result)) expect(text).not.toContain(LINK);
        if (result !== doc) rewritten += 1;
      }),
      { numRuns: 300 },
    );
    expect(rewritten).toBeGreaterThan(0);
  });
});

describe('playersSeeChange', () => {
  const stored = (doc: RichText) => JSON.stringify(doc);
  const editLeaves = (doc: RichText, inSecret: boolean): RichText => {
    const edit = (node: unknown, secret: boolean): unknown => {
      const n = node as Record<string, unknown>;
      if (typeof n.text === 'string') return secret === inSecret ? { ...n, text: `${n.text} edited` } : n;
      return { ...n, children: (n.children as unknown[]).map((child) => edit(child, secret || n.isSecret === true)) };
    };
    return doc.map((block) => edit(block, false)) as RichText;
  };

  it('is false for edits made only inside secret elements, and for any edit of a GM-only record', () => {
    fc.assert(
      fc.property(docArb, fc.constantFrom('all', 'gm'), (doc, visibility) => {
        const before = { visibility, name: 'Sildar', description: stored(doc) };
        expect(playersSeeChange(before, { ...before, description: stored(editLeaves(doc, true)) }, ['name'], ['description'])).toBe(false);
        const gmOnly = { ...before, visibility: 'gm' };
        expect(playersSeeChange(gmOnly, { ...gmOnly, name: 'Other', description: stored(editLeaves(doc, false)) }, ['name'], ['description'])).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('is true for an edit of visible text, a rename or a change of visibility', () => {
    fc.assert(
      fc.property(docArb, (doc) => {
        const before = { visibility: 'all', name: 'Sildar', description: stored(doc) };
        const visibleEdit = stored(editLeaves(doc, false));
        let hasVisibleText = false;
        walkWithSecrecy(doc, (node, secret) => {
          if (!secret && typeof (node as { text?: unknown }).text === 'string') hasVisibleText = true;
        });
        if (hasVisibleText) expect(playersSeeChange(before, { ...before, description: visibleEdit }, ['name'], ['description'])).toBe(true);
        expect(playersSeeChange(before, { ...before, name: 'Sildar Hallwinter' }, ['name'], ['description'])).toBe(true);
        expect(playersSeeChange(before, { ...before, visibility: 'gm' }, ['name'], ['description'])).toBe(true);
        expect(playersSeeChange({ ...before, visibility: 'gm' }, before, ['name'], ['description'])).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
  it('tells a change exactly as players read the text, with or without secrets, empty forms taken as one', () => {
    // Texts as stored (JSON.stringify of the document), some with no isSecret key at all, and the
    // stored forms of an empty document.
    const withoutKeys = (doc: RichText): RichText => JSON.parse(JSON.stringify(doc, (key, value: unknown) => (key === 'isSecret' && value === false ? undefined : value))) as RichText;
    const emptyForms = fc.constantFrom<unknown>(null, '[]', 'null', JSON.stringify([{ type: 'paragraph', children: [{ text: '' }] }]));
    const storedArb = fc.oneof(docArb.map(stored), docArb.map((doc) => stored(withoutKeys(doc))), emptyForms);
    const playersRead = (value: unknown) => {
      const doc = (typeof value === 'string' ? JSON.parse(value) : null) as RichText | null;
      const kept = redactNodes(doc ?? []);
      return JSON.stringify(kept.length > 0 ? kept : [{ type: 'paragraph', children: [{ text: '' }] }]);
    };
    let fastPath = 0;
    fc.assert(
      fc.property(storedArb, storedArb, (a, b) => {
        const before = { visibility: 'all', description: a };
        const expected = a !== b && playersRead(a) !== playersRead(b);
        expect(playersSeeChange(before, { ...before, description: b }, [], ['description'])).toBe(expected);
        if (!String(a).includes('isSecret') && !String(b).includes('isSecret')) fastPath += 1;
      }),
      { numRuns: 500 },
    );
    expect(fastPath).toBeGreaterThan(50);
  });
});
