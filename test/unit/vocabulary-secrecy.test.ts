import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsSecret, isElementNode, isLeafNode, isSecretNode, mentionTarget, redactNodes, walkWithSecrecy } from '../../src/vocabulary/index.js';

// The one definition of secrecy (CONTRACT "Secrets that hold"): `isSecret: true` on any element at
// any depth, with everything inside it.

const t = (text: string) => ({ text });
const p = (...children: unknown[]) => ({ type: 'paragraph', children });
const item = (...children: unknown[]) => ({ type: 'list-item', children });
const list = (...items: unknown[]) => ({ type: 'bulleted-list', children: items });
const cell = (...children: unknown[]) => ({ type: 'table-cell', children });
const row = (...cells: unknown[]) => ({ type: 'table-row', children: cells });
const table = (...rows: unknown[]) => ({ type: 'table', children: rows });
const quote = (...children: unknown[]) => ({ type: 'block-quote', children });
const secret = <T extends object>(node: T) => ({ ...node, isSecret: true });
const mention = (targetId: number, label = '') => ({ type: 'mention', targetType: 'thing', targetId, children: [t(label)] });

describe('isSecretNode and containsSecret', () => {
  it('knows a secret element by its own flag, and finds one at any depth', () => {
    expect(isSecretNode(secret(p(t('x'))))).toBe(true);
    expect(isSecretNode({ ...p(t('x')), isSecret: 'true' })).toBe(false);
    expect(isSecretNode(null)).toBe(false);
    expect(isSecretNode([secret(p())])).toBe(false);
    expect(containsSecret([p(t('a')), list(item(p(t('b'))))])).toBe(false);
    expect(containsSecret([list(item(p(t('b')), list(secret(item(p(t('deep')))))))])).toBe(true);
    expect(containsSecret(table(row(secret(cell(p(t('c')))))))).toBe(true);
    expect(containsSecret([p(t('see '), secret({ type: 'link', url: 'https://x.test/', children: [t('here')] }))])).toBe(true);
  });
});

describe('walkWithSecrecy', () => {
  it('visits every node in document order with whether it sits inside a secret element', () => {
    const seen: [string, boolean, number][] = [];
    walkWithSecrecy([p(t('open')), list(item(p(t('one'))), secret(item(p(t('two')), quote(p(t('three'))))))], (node, isSecret, depth) => {
      if (isLeafNode(node)) seen.push([node.text, isSecret, depth]);
    });
    expect(seen).toEqual([
      ['open', false, 2],
      ['one', false, 4],
      ['two', true, 4],
      ['three', true, 5],
    ]);
  });

  it('walks a value nested far deeper than the call stack allows', () => {
    let node: unknown = t('bottom');
    for (let i = 0; i < 100_000; i++) node = { type: 'block-quote', isSecret: i === 50_000, children: [node] };
    let leaf: boolean | undefined;
    walkWithSecrecy([node], (n, isSecret) => {
      if (isLeafNode(n)) leaf = isSecret;
    });
    expect(leaf).toBe(true);
  });
});

describe('redactNodes', () => {
  it('removes secrets at every depth the editor writes, with everything inside them', () => {
    const value = [
      p(t('Open.')),
      secret(p(t('top'))),
      list(item(p(t('inn'))), secret(item(p(t('secret item'))))),
      list(item(p(t('mine')), secret(p(t('paragraph in item'))))),
      list(item(p(t('manor')), secret(list(item(p(t('nested list'))))))),
      table(row(cell(p(t('Who'))), cell(p(t('What')))), row(cell(p(t('Sildar'))), secret(cell(p(t('spy')))))),
      list(item(p(t('shrine')), secret(quote(p(t('oracle')))))),
      p(t('See '), secret({ type: 'link', url: 'https://x.test/', children: [t('link')] }), t('.')),
    ];
    expect(redactNodes(value)).toEqual([
      p(t('Open.')),
      list(item(p(t('inn')))),
      list(item(p(t('mine')))),
      list(item(p(t('manor')))),
      // A secret cell stays under its header, empty and no longer secret.
      table(row(cell(p(t('Who'))), cell(p(t('What')))), row(cell(p(t('Sildar'))), cell(t('')))),
      list(item(p(t('shrine')))),
      p(t('See '), t('.')),
    ]);
  });

  it('removes a list, quote or table emptied by the removal, and keeps an emptied text block as an empty line', () => {
    expect(redactNodes([list(secret(item(p(t('a')))), secret(item(p(t('b'))))), p(t('after'))])).toEqual([p(t('after'))]);
    expect(redactNodes([quote(secret(p(t('a'))))])).toEqual([]);
    expect(redactNodes([table(secret(row(cell(p(t('a'))))))])).toEqual([]);
    expect(redactNodes([p(secret({ type: 'link', url: '/x', children: [t('only')] }))])).toEqual([]);
    expect(redactNodes([p(t(''), secret({ type: 'link', url: '/x', children: [t('only')] }), t(''))])).toEqual([p(t(''), t(''))]);
  });

  it('removes what `drop` names whole (a mention of a hidden record, label included)', () => {
    const hidden = (node: unknown) => mentionTarget(node)?.targetId === 7;
    expect(redactNodes([p(t('Ask '), mention(7, 'Nezznar'), t(' and '), mention(8), t('.'))], hidden)).toEqual([p(t('Ask '), t(' and '), mention(8), t('.'))]);
    expect(redactNodes([list(item(p(t('x'))), secret(item(p(mention(8)))))], hidden)).toEqual([list(item(p(t('x'))))]);
  });

  it('returns unchanged subtrees as the same objects', () => {
    const open = list(item(p(t('a'))));
    const value = [open, secret(p(t('b')))];
    const out = redactNodes(value);
    expect(out[0]).toBe(open);
    const untouched = [p(t('a')), open];
    expect(redactNodes(untouched)).toBe(untouched);
  });

  it('keeps every word outside a secret element and no word inside one, for any tree (property)', () => {
    // Random trees of the vocabulary's elements, each element secret or not, some mentions hidden.
    const types = ['paragraph', 'heading-two', 'block-quote', 'bulleted-list', 'list-item', 'table', 'table-row', 'table-cell', 'link', 'mention', 'mystery'];
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant<unknown>({ text: '' }),
        fc.record({
          type: fc.constantFrom(...types),
          isSecret: fc.boolean(),
          targetType: fc.constant('thing'),
          targetId: fc.nat(3),
          children: fc.array(tie('node'), { minLength: 1, maxLength: 4 }),
        }),
      ),
    })).node;
    let runs = 0;
    let words = 0;
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 5 }), fc.nat(3), (generated, hiddenId) => {
        runs += 1;
        // Every leaf a unique word, so each can be traced.
        let counter = 0;
        const number = (node: unknown): unknown => {
          if (isLeafNode(node)) return { text: `w${(counter += 1)}` };
          if (!isElementNode(node)) return node;
          return { ...node, children: node.children.map(number) };
        };
        const value = generated.map(number);
        const drop = (node: unknown) => mentionTarget(node)?.targetId === hiddenId;
        const expected: string[] = [];
        const visit = (node: unknown) => {
          if (isLeafNode(node)) expected.push(node.text);
          else if (isElementNode(node) && !isSecretNode(node) && !drop(node)) node.children.forEach(visit);
        };
        value.forEach(visit);
        const shown: string[] = [];
        walkWithSecrecy(redactNodes(value, drop), (node, isSecret) => {
          expect(isSecret).toBe(false);
          expect(drop(node) && isElementNode(node)).toBe(false);
          if (isLeafNode(node) && node.text !== '') shown.push(node.text);
        });
        words += expected.length;
        expect(shown).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    expect(runs).toBe(2000);
    expect(words).toBeGreaterThan(0);
  });
});
