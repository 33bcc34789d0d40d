// The callout, highlight and task vocabulary (CONTRACT "Import from elsewhere"): what the shared
// module reads of a node, and a callout's title as search text: indexed like the callout's words,
// hidden with them when the callout is secret or sits in a secret block.
import { describe, expect, it } from 'vitest';
import { plainText, plainTextOfStored } from '../../src/search/document.js';
import { BLOCK_TYPES, calloutKind, calloutTitle, MARKS, taskState } from '../../src/vocabulary/index.js';

const p = (text: string) => ({ type: 'paragraph', children: [{ text }] });
const callout = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'callout', ...fields, children });

describe('the vocabulary of callouts, highlights and tasks', () => {
  it('names the callout a block and highlight a mark', () => {
    expect(BLOCK_TYPES).toContain('callout');
    expect(MARKS).toContain('highlight');
  });

  it('reads a callout’s kind and title, and nothing of other elements', () => {
    expect(calloutKind(callout({ kind: 'warning', title: 'Careful' }))).toBe('warning');
    expect(calloutTitle(callout({ kind: 'warning', title: 'Careful' }))).toBe('Careful');
    expect(calloutTitle(callout({ kind: 'note' }))).toBeUndefined();
    expect(calloutTitle(callout({ kind: 'note', title: '' }))).toBeUndefined();
    expect(calloutTitle(callout({ kind: 'note', title: 5 }))).toBeUndefined();
    expect(calloutKind(callout({ kind: 5 }))).toBe('');
    expect(calloutKind({ type: 'paragraph', kind: 'note', children: [] })).toBe('');
    expect(calloutTitle({ type: 'block-quote', title: 'x', children: [] })).toBeUndefined();
    expect(calloutKind(null)).toBe('');
  });

  it('tells a task by `checked` on a list item only', () => {
    expect(taskState({ type: 'list-item', checked: true, children: [] })).toBe(true);
    expect(taskState({ type: 'list-item', checked: false, children: [] })).toBe(false);
    expect(taskState({ type: 'list-item', children: [] })).toBeUndefined();
    expect(taskState({ type: 'list-item', checked: 'true', children: [] })).toBeUndefined();
    expect(taskState({ type: 'paragraph', checked: true, children: [] })).toBeUndefined();
  });
});

describe('a callout’s title as search text', () => {
  it('is a line of its own before the callout’s blocks', () => {
    expect(plainText([p('Before'), callout({ kind: 'warning', title: 'The bridge is out' }, p('Take the ford.')), p('After')])).toBe('Before\nThe bridge is out\nTake the ford.\nAfter');
  });

  it('is in a game master’s text and not in a player’s when the callout is secret or inside a secret block', () => {
    const stored = JSON.stringify([
      p('Open words'),
      callout({ kind: 'note', title: 'Vampiretitle', isSecret: true }, p('secret body')),
      { type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [callout({ kind: 'tip', title: 'Deepertitle' }, p('deeper body'))] }] },
      callout({ kind: 'info', title: 'Visibletitle' }, p('visible body')),
    ]);
    expect(plainTextOfStored(stored, true)).toBe('Open words\nVampiretitle\nsecret body\nDeepertitle\ndeeper body\nVisibletitle\nvisible body');
    expect(plainTextOfStored(stored, false)).toBe('Open words\nVisibletitle\nvisible body');
  });
});
