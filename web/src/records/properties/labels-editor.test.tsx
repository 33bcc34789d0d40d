// @vitest-environment jsdom
// Tag and alias chips (labels-editor.tsx): the campaign's tags offered as they are typed (without
// those the record has), Enter and a comma add, Backspace in the empty field removes the last one,
// a duplicate is refused with a message, and every chip has a remove button named for it.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { AliasesEditor, TagsEditor } from './labels-editor';
import { rootPerTest } from '../../ui/test-root';

const dom = rootPerTest();
let labels: string[];

function render(kind: 'tags' | 'aliases', initial: string[]) {
  labels = initial;
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  queryClient.setQueryData(['campaign', 'c', 'tags'], [
    { tag: 'dragon-cult', things: 2, arcs: 0 },
    { tag: 'Dragons', things: 1, arcs: 1 },
    { tag: 'villain', things: 3, arcs: 0 },
  ]);
  const draw = () =>
    dom.root.render(
      <QueryClientProvider client={queryClient}>
        {kind === 'tags' ? <TagsEditor campaignSlug="c" labels={labels} onChange={change} /> : <AliasesEditor labels={labels} onChange={change} />}
      </QueryClientProvider>,
    );
  const change = (next: string[]) => {
    labels = next;
    draw();
  };
  act(draw);
}

const input = () => dom.container.querySelector<HTMLInputElement>('input')!;
const type = (text: string) =>
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input(), text);
    input().dispatchEvent(new Event('input', { bubbles: true }));
  });
const press = (key: string) => act(() => void input().dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true })));
const offered = () => [...dom.container.querySelectorAll('datalist option')].map((o) => o.getAttribute('value'));

describe('TagsEditor', () => {
  it('offers the campaign’s tags that match what is typed, leaving out those the record has', () => {
    render('tags', ['villain']);
    expect(input().getAttribute('list')).toBe(dom.container.querySelector('datalist')!.id);
    type('dr');
    expect(offered()).toEqual(['dragon-cult', 'Dragons']);
    type('vil');
    expect(offered()).toEqual([]);
  });

  it('adds on Enter and on a comma, refuses a duplicate, and Backspace in the empty field removes the last', () => {
    render('tags', ['villain']);
    type('undead');
    press('Enter');
    expect(labels).toEqual(['villain', 'undead']);
    expect(input().value).toBe('');
    type('boss, cult,');
    expect(labels).toEqual(['villain', 'undead', 'boss', 'cult']);
    type('VILLAIN');
    press('Enter');
    expect(labels).toEqual(['villain', 'undead', 'boss', 'cult']);
    expect(dom.container.querySelector('[role="alert"]')?.textContent).toMatch(/already/);
    type('');
    press('Backspace');
    expect(labels).toEqual(['villain', 'undead', 'boss']);
    act(() => dom.container.querySelector<HTMLButtonElement>('button[aria-label="Remove tag undead"]')!.click());
    expect(labels).toEqual(['villain', 'boss']);
    expect(document.activeElement).toBe(input());
  });
});

describe('AliasesEditor', () => {
  it('keeps commas inside an alias and adds it on Enter', () => {
    render('aliases', []);
    type('Meepo, Keeper of Dragons');
    press('Enter');
    expect(labels).toEqual(['Meepo, Keeper of Dragons']);
    expect(dom.container.querySelector('button[aria-label="Remove alias Meepo, Keeper of Dragons"]')).not.toBeNull();
  });
});
