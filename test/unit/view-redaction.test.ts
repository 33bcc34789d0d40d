import { describe, expect, it } from 'vitest';
import { makeView, richTextFor, richTextJsonFor, type View } from '../../src/access/view.js';

// A player's view of stored rich text (src/access/view.ts): secrets at any depth and mentions of
// hidden records go, through the parsed path and the JSON fast path alike.

const campaign = { id: 1, content_version: 0 };
const player: View = { ...makeView(campaign, 'player', false), hidden: { things: new Set([7]), arcs: new Set([3]) } };
const gm = makeView(campaign, 'gm', false);
const EMPTY = '[{"type":"paragraph","children":[{"text":""}]}]';

const t = (text: string) => ({ text });
const p = (...children: unknown[]) => ({ type: 'paragraph', children });

describe('redaction for a player’s view', () => {
  const stored = JSON.stringify([
    p(t('Ask '), { type: 'mention', targetType: 'thing', targetId: 7, children: [t('Nezznar')] }, t(' or '), { type: 'mention', targetType: 'arc', targetId: 4, children: [t('')] }),
    { type: 'bulleted-list', children: [{ type: 'list-item', children: [p(t('open'))] }, { type: 'list-item', isSecret: true, children: [p(t('deep secret'))] }] },
  ]);
  const expected = [
    p(t('Ask '), t(' or '), { type: 'mention', targetType: 'arc', targetId: 4, children: [t('')] }),
    { type: 'bulleted-list', children: [{ type: 'list-item', children: [p(t('open'))] }] },
  ];

  it('removes a nested secret and a hidden record’s mention whole, parsed or as JSON', () => {
    expect(richTextFor(player, stored)).toEqual(expected);
    expect(JSON.parse(richTextJsonFor(player, stored, EMPTY))).toEqual(expected);
    expect(richTextJsonFor(gm, stored, EMPTY)).toBe(stored);
  });

  it('answers the stored text itself when there is nothing to remove, and an empty field when everything goes', () => {
    const plain = JSON.stringify([p(t('Nothing hidden.'))]);
    expect(richTextJsonFor(player, plain, EMPTY)).toBe(plain);
    const visibleMention = JSON.stringify([p({ type: 'mention', targetType: 'thing', targetId: 8, children: [t('')] })]);
    expect(richTextJsonFor(player, visibleMention, EMPTY)).toBe(visibleMention);
    expect(richTextJsonFor(player, JSON.stringify([{ ...p(t('all secret')), isSecret: true }]), EMPTY)).toBe(EMPTY);
    expect(richTextJsonFor(player, null, EMPTY)).toBe(EMPTY);
  });
});
