// The editor's own calls of the API.
// - What the mention picker offers for what is typed after `@` or `[[` (the search route: names,
//   aliases, text; the search list's query, search/api.ts).
// - The campaign's images (GET …/assets, which game masters, the ones who edit, may list) give each
//   uploaded image's width and height, so the editor reserves an image's box before it loads, as the
//   rendered page does. Its key stands outside ['campaign', slug]: saving a text changes no image's
//   size, so a save does not fetch the list again.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call, type SearchResults } from '../api/client';
import { searchMatchesQuery } from '../search/api';

export type MentionCandidate = SearchResults['results'][number];

/** Things and arcs matching `q` (best first; none for an empty `q`); the previous answer stays shown while the next one loads. */
export function useMentionSearch(slug: string, q: string) {
  return useQuery({ ...searchMatchesQuery(slug, q), placeholderData: keepPreviousData });
}

export const assetsKey = (slug: string) => ['assets', slug] as const;
type Assets = Awaited<ReturnType<typeof listAssets>>;
type Size = { width: number; height: number };

const listAssets = (slug: string) => call(api.GET('/api/campaigns/{campaignSlug}/assets', { params: { path: { campaignSlug: slug } } }));

const sizesById = (assets: Assets): Map<number, Size> =>
  new Map(assets.flatMap((a) => (a.width !== null && a.height !== null ? [[a.id, { width: a.width, height: a.height }] as const] : [])));

/** The width and height of the uploaded image `assetId` names, once known; the list is read only where such an image is shown. */
export function useAssetSize(slug: string | undefined, assetId: unknown): Size | undefined {
  const enabled = slug !== undefined && typeof assetId === 'number';
  const { data } = useQuery({ queryKey: assetsKey(slug ?? ''), queryFn: () => listAssets(slug!), select: sizesById, enabled, staleTime: 60_000 });
  return enabled ? data?.get(assetId) : undefined;
}

/** An upload's first step (the API's images guide): where to PUT the file's bytes, and the image's id. */
export const requestUpload = (campaignSlug: string, label: string) =>
  call(api.POST('/api/campaigns/{campaignSlug}/assets/upload-url', { params: { path: { campaignSlug } }, body: { label } }));

/** An upload's last step, once the bytes are PUT: the image becomes an asset of the campaign. */
export const confirmUpload = (campaignSlug: string, imageId: string, label: string) =>
  call(api.POST('/api/campaigns/{campaignSlug}/assets/confirm-upload', { params: { path: { campaignSlug } }, body: { imageId, label } }));
