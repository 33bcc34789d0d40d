// @vitest-environment jsdom
// The quick switcher's recent pages (recent.ts) in the browser's own localStorage (jsdom's): most
// recent first, each page once, at most ten, per user and campaign, GM-only ones offered only to
// those who see GM-only records, and all forgotten on signing out.
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgetRecentPages, offeredPages, RECENT_PAGES, recentPageAddress, recentPages, recentPagesKey, rememberPage, type RecentPage } from './recent';

beforeEach(() => localStorage.clear());

const page = (id: number, kind: RecentPage['kind'] = 'thing', visibility: RecentPage['visibility'] = 'all'): RecentPage => ({ kind, id, slug: `${kind}-${id}`, name: `${kind} ${id}`, visibility });

describe('recent pages', () => {
  it('answers none before any visit and when storage holds something else', () => {
    const key = recentPagesKey(1, 'c');
    expect(recentPages(localStorage, key)).toEqual([]);
    localStorage.setItem(key, '{not json');
    expect(recentPages(localStorage, key)).toEqual([]);
    localStorage.setItem(key, JSON.stringify([{ kind: 'thing', id: 'x' }, page(3), 'hello']));
    expect(recentPages(localStorage, key)).toEqual([page(3)]);
  });

  it('keeps the latest visits first, each page once, at most ten (a model of any sequence of visits)', () => {
    const visit = fc.record({ kind: fc.constantFrom<RecentPage['kind']>('thing', 'arc', 'type'), id: fc.integer({ min: 1, max: 15 }) });
    fc.assert(
      fc.property(fc.array(visit, { maxLength: 60 }), (visits) => {
        localStorage.clear();
        const key = recentPagesKey(7, 'campaign');
        for (const v of visits) rememberPage(localStorage, key, page(v.id, v.kind));
        // The model: the distinct pages by their last visit, latest first.
        const model: string[] = [];
        for (const v of [...visits].reverse()) {
          const id = `${v.kind}-${v.id}`;
          if (!model.includes(id)) model.push(id);
        }
        expect(recentPages(localStorage, key).map((p) => p.slug)).toEqual(model.slice(0, RECENT_PAGES));
      }),
    );
  });

  it('takes a page’s name and address of now when it is visited again', () => {
    const key = recentPagesKey(1, 'c');
    rememberPage(localStorage, key, page(1));
    rememberPage(localStorage, key, page(2));
    rememberPage(localStorage, key, { ...page(1), name: 'Renamed', slug: 'renamed' });
    expect(recentPages(localStorage, key).map((p) => [p.name, p.slug])).toEqual([
      ['Renamed', 'renamed'],
      ['thing 2', 'thing-2'],
    ]);
  });

  it('keeps each user’s and each campaign’s pages apart, and forgets them all on signing out', () => {
    rememberPage(localStorage, recentPagesKey(1, 'a'), page(1));
    rememberPage(localStorage, recentPagesKey(2, 'a'), page(2));
    rememberPage(localStorage, recentPagesKey(1, 'b'), page(3));
    localStorage.setItem('loreforge.theme', 'dark');
    expect(recentPages(localStorage, recentPagesKey(1, 'a')).map((p) => p.id)).toEqual([1]);
    expect(recentPages(localStorage, recentPagesKey(2, 'a')).map((p) => p.id)).toEqual([2]);
    expect(recentPages(localStorage, recentPagesKey(1, 'b')).map((p) => p.id)).toEqual([3]);
    forgetRecentPages(localStorage);
    expect(recentPages(localStorage, recentPagesKey(1, 'a'))).toEqual([]);
    expect(recentPages(localStorage, recentPagesKey(2, 'a'))).toEqual([]);
    expect(localStorage.getItem('loreforge.theme')).toBe('dark');
  });

  it('offers GM-only pages only to someone who sees GM-only records', () => {
    const pages = [page(1, 'thing', 'gm'), page(2), page(3, 'arc', 'gm')];
    expect(offeredPages(pages, true)).toEqual(pages);
    expect(offeredPages(pages, false)).toEqual([page(2)]);
  });

  it('addresses things and arcs by slug and types by id', () => {
    expect(recentPageAddress('c', page(4, 'thing'))).toBe('/campaigns/c/things/thing-4');
    expect(recentPageAddress('c', page(4, 'arc'))).toBe('/campaigns/c/arcs/arc-4');
    expect(recentPageAddress('c', page(4, 'type'))).toBe('/campaigns/c/types/4');
  });
});
