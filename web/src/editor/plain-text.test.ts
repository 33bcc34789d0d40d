// The words of rich text the conflict dialog shows and copies: a callout's title is among them.
import { describe, expect, it } from 'vitest';
import { plainText } from './plain-text';

describe('plainText', () => {
  it('gives one block a line, a callout’s title before its words, and a task’s words', () => {
    const value = [
      { type: 'paragraph', children: [{ text: 'Before' }] },
      { type: 'callout', kind: 'warning', title: 'The bridge is out', children: [{ type: 'paragraph', children: [{ text: 'Take the ' }, { text: 'ford', highlight: true }] }] },
      { type: 'bulleted-list', children: [{ type: 'list-item', checked: true, children: [{ text: 'Buy rope' }] }] },
    ];
    expect(plainText(value)).toBe('Before\nThe bridge is out\nTake the ford\nBuy rope');
  });
});
