// @vitest-environment jsdom
// The properties panel as a user works it (properties-panel.tsx): declared fields first in the
// type's order, a number that does not read as one is not sent, GM-only, reordering with the focus
// kept on the moved row's buttons, and removing.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Property, TypeField } from './model';
import { PropertiesPanel } from './properties-panel';
import { rootPerTest } from '../../ui/test-root';

const dom = rootPerTest();
let changes: Property[][];

function render(properties: Property[], fields: TypeField[] = []) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  // The arcs the names come from, as the sidebar holds them (nothing is fetched here).
  queryClient.setQueryData(['campaign', 'c', 'arcs'], []);
  const onChange = (next: Property[]) => {
    changes.push(next);
    act(() => dom.root.render(tree(next)));
  };
  const tree = (current: Property[]) => (
    <QueryClientProvider client={queryClient}>
      <MemoryRouter>
        <PropertiesPanel campaignSlug="c" properties={current} fields={fields} onChange={onChange} generation={0} self={{ type: 'thing', id: 1 }} problem={undefined} />
      </MemoryRouter>
    </QueryClientProvider>
  );
  act(() => dom.root.render(tree(properties)));
}

beforeEach(() => {
  changes = [];
});

const byLabel = (text: string) => {
  const label = [...dom.container.querySelectorAll('label')].find((l) => l.textContent === text);
  return document.getElementById(label!.htmlFor) as HTMLInputElement;
};
const button = (name: string) => dom.container.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`)!;

function type(input: HTMLInputElement, text: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

const p = (key: string, value: Property['value'], gmOnly = false): Property => ({ key, value, gmOnly });

describe('PropertiesPanel', () => {
  it('shows the type’s fields first, in its order, and the other properties after', () => {
    render([p('Mood', 'grim'), p('Level', 2)], [
      { key: 'Species', kind: 'text' },
      { key: 'Level', kind: 'number' },
    ]);
    const keys = [...dom.container.querySelectorAll('.property-key')].map((k) => k.textContent);
    expect(keys).toEqual(['Species', 'Level', 'Mood']);
    expect(byLabel('Level').value).toBe('2');
    expect(byLabel('Species').value).toBe('');
  });

  it('sends a number only once it reads as one, and says why not meanwhile', () => {
    render([p('Level', 2)]);
    type(byLabel('Level'), 'three');
    expect(changes).toEqual([]);
    expect(dom.container.querySelector('[role="alert"]')?.textContent).toMatch(/Level must be a number/);
    type(byLabel('Level'), '3');
    expect(changes).toEqual([[p('Level', 3)]]);
    expect(dom.container.querySelector('[role="alert"]')).toBeNull();
  });

  it('a declared field the record lacks is added on its first value', () => {
    render([p('Mood', 'grim')], [{ key: 'Species', kind: 'text' }]);
    type(byLabel('Species'), 'Kobold');
    expect(changes.at(-1)).toEqual([p('Mood', 'grim'), p('Species', 'Kobold')]);
  });

  it('moves a property down and keeps the focus on its buttons; marks one GM-only; removes one', () => {
    render([p('A', 'a'), p('B', 'b'), p('C', 'c')]);
    act(() => button('Move A down').click());
    expect(changes.at(-1)!.map((x) => x.key)).toEqual(['B', 'A', 'C']);
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Move A down');
    act(() => button('Move A down').click());
    expect(changes.at(-1)!.map((x) => x.key)).toEqual(['B', 'C', 'A']);
    // At the end "down" is disabled: the focus goes to "up".
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Move A up');
    const gm = [...dom.container.querySelectorAll<HTMLInputElement>('.gm-toggle input')][0]!;
    act(() => gm.click());
    expect(changes.at(-1)![0]).toEqual(p('B', 'b', true));
    expect(dom.container.querySelector('.property.gm-only .property-key')?.textContent).toBe('B');
    act(() => button('Remove C').click());
    expect(changes.at(-1)!.map((x) => x.key)).toEqual(['B', 'A']);
  });

  it('adds a property of the chosen kind, refusing a name it has already', () => {
    render([p('Species', 'Elf')]);
    const key = byLabel('New property');
    const form = key.closest('form')!;
    type(key, 'species');
    act(() => form.requestSubmit());
    expect(changes).toEqual([]);
    expect(form.querySelector('[role="alert"]')?.textContent).toMatch(/already/);
    type(key, 'Allies');
    act(() => {
      const kind = byLabel('Kind') as unknown as HTMLSelectElement;
      kind.value = 'list';
      kind.dispatchEvent(new Event('change', { bubbles: true }));
    });
    act(() => form.requestSubmit());
    expect(changes.at(-1)).toEqual([p('Species', 'Elf'), p('Allies', [])]);
  });
});
