// @vitest-environment jsdom
// The rendered diff (diff-view.tsx): changes in <ins>/<del> and named in words, unchanged runs
// folded, mentions by their current names, and "copy back" offered on removed and changed blocks only.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { diffBlocks, type Block } from './block-diff';
import { BlockDiff } from './diff-view';
import { rootPerTest } from '../ui/test-root';

const p = (text: string): Block => ({ type: 'paragraph', children: [{ text }] });
const dom = rootPerTest();

function show(before: Block[], after: Block[]): number[] {
  const copied: number[] = [];
  act(() => dom.root.render(<BlockDiff changes={diffBlocks(before, after)} mentionName={(type, id) => (type === 'thing' && id === 3 ? 'Sildar' : undefined)} onCopyBack={(at) => copied.push(at)} copyLabel="Copy this block back" />));
  return copied;
}

describe('BlockDiff', () => {
  it('marks added and removed blocks with <ins>/<del> and says so in words', () => {
    show([p('Intro'), p('Gone now')], [p('Intro'), { type: 'heading-two', children: [{ text: 'Brand new' }] }]);
    expect(dom.container.querySelector('del')?.textContent).toBe('Gone now');
    expect(dom.container.querySelector('ins')?.textContent).toBe('Brand new');
    const labels = [...dom.container.querySelectorAll('.diff-label')].map((l) => l.textContent);
    expect(labels).toEqual(['Removed', 'Added']);
    // No heading elements inside the panel: the page's outline stays the page's.
    expect(dom.container.querySelector('h1, h2, h3, h4, h5, h6')).toBeNull();
  });

  it('shows a word edit inside its paragraph, with hidden words for screen readers', () => {
    show([p('The red dragon sleeps')], [p('The green dragon sleeps')]);
    const block = dom.container.querySelector('.diff-block.changed')!;
    expect(block.querySelector('del')?.textContent).toBe('[removed: red]');
    expect(block.querySelector('ins')?.textContent).toBe('[added: green]');
    expect(block.querySelector('.diff-label')?.textContent).toBe('Changed');
  });

  it('folds long runs of unchanged blocks', () => {
    const many = Array.from({ length: 10 }, (_, i) => p(`Block ${i}`));
    show(many, [...many, p('The end')]);
    expect(dom.container.querySelector('.diff-unchanged')?.textContent).toBe('9 unchanged blocks');
    expect(dom.container.textContent).toContain('Block 9');
  });

  it('names mentions by their target’s current name', () => {
    show([], [{ type: 'paragraph', children: [{ text: 'Ask ' }, { type: 'mention', targetType: 'thing', targetId: 3, children: [{ text: '' }] }, { text: '' }] }]);
    expect(dom.container.querySelector('ins')?.textContent).toBe('Ask @Sildar');
  });

  it('offers to copy back removed and changed blocks, never added or unchanged ones', () => {
    const copied = show([p('Kept'), p('one two three four five'), p('Removed for good')], [p('Kept'), p('one two three four six'), p('Added later')]);
    const buttons = [...dom.container.querySelectorAll('button')];
    expect(buttons.map((b) => b.closest('.diff-block')?.className)).toEqual(['diff-block changed', 'diff-block removed']);
    act(() => buttons[1]!.click());
    expect(copied).toEqual([2]);
  });

  it('side by side: the older version left with its removed words, the newer right with its added ones', () => {
    const changes = diffBlocks([p('Kept'), p('The red dragon sleeps'), p('Gone now')], [p('Kept'), p('The green dragon sleeps'), p('Brand new')]);
    const copied: number[] = [];
    act(() => dom.root.render(<BlockDiff changes={changes} mentionName={() => undefined} onCopyBack={(at) => copied.push(at)} copyLabel="Copy this block back" layout="side-by-side" sides={['This revision', 'Current text']} />));
    const rows = [...dom.container.querySelectorAll('.diff-row:not(.diff-sides)')];
    const cells = rows.map((row) => [...row.querySelectorAll('.diff-cell')].map((cell) => cell.textContent));
    expect(cells).toEqual([
      ['Kept', 'Kept'],
      ['Changed, beforeThe [removed: red] dragon sleepsCopy this block back', 'Changed, afterThe [added: green] dragon sleeps'],
      ['RemovedGone nowCopy this block back', ''],
      ['', 'AddedBrand new'],
    ]);
    expect(dom.container.querySelector('.diff-sides')?.textContent).toBe('This revisionCurrent text');
    act(() => [...dom.container.querySelectorAll('button')][1]!.click());
    expect(copied).toEqual([2]);
  });
});
