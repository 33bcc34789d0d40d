// The record page's own writes besides the autosave (records/record-state.ts): a new address.
import { api, call } from '../api/client';

/** Changes a thing's or an arc's slug (its address) with If-Match; the answer is the record at its new address. */
export function changeAddress(campaignSlug: string, kind: 'things' | 'arcs', slug: string, next: string, etag: string | undefined) {
  const header = etag ? { 'if-match': etag } : {};
  return kind === 'things'
    ? call(api.PUT('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path: { campaignSlug, thingSlug: slug }, header }, body: { updatedThing: { slug: next } } }))
    : call(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, arcSlug: slug }, header }, body: { updatedArc: { slug: next } } }));
}
