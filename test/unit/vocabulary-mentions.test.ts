import { describe, expect, it } from 'vitest';
import { isMentionNode, mentionLabel, mentionTarget, newMention } from '../../src/vocabulary/index.js';

// Mentions store no name (CONTRACT "Secrets that hold"): empty children show the target's current
// name, non-empty children are a label.

describe('mentions', () => {
  it('are inserted without a name', () => {
    expect(newMention('thing', 4)).toEqual({ type: 'mention', targetType: 'thing', targetId: 4, children: [{ text: '' }] });
    expect(mentionLabel(newMention('arc', 9))).toBe('');
  });

  it('name their target only when it is well formed', () => {
    expect(mentionTarget(newMention('arc', 9))).toEqual({ targetType: 'arc', targetId: 9 });
    expect(mentionTarget({ type: 'mention', targetType: 'npc', targetId: 1, children: [] })).toBeUndefined();
    expect(mentionTarget({ type: 'mention', targetType: 'thing', targetId: '1', children: [] })).toBeUndefined();
    expect(mentionTarget({ type: 'mention', targetType: 'thing', targetId: 1.5, children: [] })).toBeUndefined();
    expect(mentionTarget({ type: 'mention', targetType: 'thing', targetId: 2 ** 60, children: [] })).toBeUndefined();
    expect(mentionTarget({ type: 'link', targetType: 'thing', targetId: 1, children: [] })).toBeUndefined();
    expect(mentionTarget({ type: 'mention', targetType: 'thing', targetId: 1 })).toBeUndefined();
    expect(mentionTarget(null)).toBeUndefined();
  });

  it('read their label as the text of their children, across marks', () => {
    expect(mentionLabel({ type: 'mention', targetType: 'thing', targetId: 1, children: [{ text: 'the ' }, { text: 'wizard', bold: true }] })).toBe('the wizard');
    expect(mentionLabel({ type: 'mention', children: 'oops' })).toBe('');
  });

  it('are told from other elements', () => {
    expect(isMentionNode(newMention('thing', 1))).toBe(true);
    expect(isMentionNode({ type: 'mention' })).toBe(false);
    expect(isMentionNode({ type: 'paragraph', children: [] })).toBe(false);
  });
});
