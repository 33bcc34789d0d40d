// The pages a user opened last in a campaign, for the quick switcher to offer before anything is
// typed. Kept in localStorage under the user's id and the campaign's slug (another account on the
// same browser never sees them), names and addresses only (never a record's text), and forgotten
// when the user signs out. An entry remembers its visibility: a GM-only record is offered only to
// someone who may see GM-only records now (a game master demoted to player is not shown its name).

export type RecentKind = 'thing' | 'arc' | 'type';

export interface RecentPage {
  kind: RecentKind;
  id: number;
  /** The thing's or arc's slug; a type's page is addressed by its id. */
  slug: string;
  name: string;
  visibility: 'all' | 'gm';
}

/** How many pages are remembered per campaign. */
export const RECENT_PAGES = 10;

const PREFIX = 'loreforge.recent.';

export const recentPagesKey = (userId: string | number, campaignSlug: string) => `${PREFIX}${userId}.${campaignSlug}`;

const isRecentPage = (value: unknown): value is RecentPage => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v['kind'] === 'thing' || v['kind'] === 'arc' || v['kind'] === 'type') &&
    typeof v['id'] === 'number' &&
    typeof v['slug'] === 'string' &&
    typeof v['name'] === 'string' &&
    (v['visibility'] === 'all' || v['visibility'] === 'gm')
  );
};

/** The remembered pages, most recent first (whatever is unreadable in storage counts as none). */
export function recentPages(storage: Storage, key: string): RecentPage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(storage.getItem(key) ?? '[]');
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? parsed.filter(isRecentPage).slice(0, RECENT_PAGES) : [];
}

/** Puts a page first (once: a page seen before moves up, under its name and address of now). */
export function rememberPage(storage: Storage, key: string, page: RecentPage): RecentPage[] {
  const entry: RecentPage = { kind: page.kind, id: page.id, slug: page.slug, name: page.name, visibility: page.visibility };
  const next = [entry, ...recentPages(storage, key).filter((p) => p.kind !== page.kind || p.id !== page.id)].slice(0, RECENT_PAGES);
  try {
    storage.setItem(key, JSON.stringify(next));
  } catch {
    // A full or refused storage only costs the list of recent pages.
  }
  return next;
}

/** Forgets every user's recent pages in every campaign (on signing out). */
export function forgetRecentPages(storage: Storage): void {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i += 1) {
    const key = storage.key(i);
    if (key?.startsWith(PREFIX)) keys.push(key);
  }
  for (const key of keys) storage.removeItem(key);
}

/** What may be offered to someone who can, or cannot, see GM-only records now. */
export const offeredPages = (pages: RecentPage[], seesGmOnly: boolean) => (seesGmOnly ? pages : pages.filter((p) => p.visibility === 'all'));

/** Where a remembered page is. */
export function recentPageAddress(campaignSlug: string, page: RecentPage): string {
  const base = `/campaigns/${encodeURIComponent(campaignSlug)}`;
  if (page.kind === 'type') return `${base}/types/${page.id}`;
  return `${base}/${page.kind === 'thing' ? 'things' : 'arcs'}/${encodeURIComponent(page.slug)}`;
}
