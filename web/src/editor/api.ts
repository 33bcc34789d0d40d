// The editor's own calls of the API.
// - What the mention picker offers for what is typed after `@` or `[[` (the search route: names,
//   aliases, text; the search list's query, search/api.ts).
// - The campaign's images (GET …/assets, which game masters, the ones who edit, may list) give each
//   uploaded image's width and height, so the editor reserves an image's box before it loads, as the
//   rendered page does, and its WebP variants, the same srcset as the rendered page's. Its key stands outside ['campaign', slug]: saving a text changes no image's
//   size, so a save does not fetch the list again. A text that opens with uploaded images waits for
//   the list before the editor shows (AwaitImageSizes): until then the rendered text, which has the
//   sizes, stands in, so the images never land without their box (no layout shift).
import { createElement, useState } from 'react';
import { keepPreviousData, queryOptions, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { api, call, type SearchResults } from '../api/client';
import { searchMatchesQuery } from '../search/api';

export type MentionCandidate = SearchResults['results'][number];

/** Things and arcs matching `q` (best first; none for an empty `q`); the previous answer stays shown while the next one loads. */
export function useMentionSearch(slug: string, q: string) {
  return useQuery({ ...searchMatchesQuery(slug, q), placeholderData: keepPreviousData });
}

export const assetsKey = (slug: string) => ['assets', slug] as const;
const readAssets = (slug: string) => call(api.GET('/api/campaigns/{campaignSlug}/assets', { params: { path: { campaignSlug: slug } } }));
type Assets = Awaited<ReturnType<typeof readAssets>>;
type Size = { width: number; height: number };
/** An uploaded image's size and its WebP variants (narrowest first), as GET …/assets answers them. */
export type AssetImage = Size & { variants: Assets[number]['variants'] };

// Sizes are a hint: a list that cannot be read (a network failure) gives none rather than an error.
const listAssets = (slug: string) => readAssets(slug).catch((): Assets => []);
const assetsQuery = (slug: string) => queryOptions({ queryKey: assetsKey(slug), queryFn: () => listAssets(slug), staleTime: 60_000 });

const imagesById = (assets: Assets): Map<number, AssetImage> =>
  new Map(assets.flatMap((a) => (a.width !== null && a.height !== null ? [[a.id, { width: a.width, height: a.height, variants: a.variants }] as const] : [])));

/** The width, height and variants of the uploaded image `assetId` names, once known; the list is read only where such an image is shown. */
export function useAssetImage(slug: string | undefined, assetId: unknown): AssetImage | undefined {
  const enabled = slug !== undefined && typeof assetId === 'number';
  const { data } = useQuery({ ...assetsQuery(slug ?? ''), select: imagesById, enabled });
  return enabled ? data?.get(assetId) : undefined;
}

/** An upload's first step (the API's images guide): where to PUT the file's bytes, and the image's id. */
export const requestUpload = (campaignSlug: string, label: string) =>
  call(api.POST('/api/campaigns/{campaignSlug}/assets/upload-url', { params: { path: { campaignSlug } }, body: { label } }));

/** An upload's last step, once the bytes are PUT: the image becomes an asset of the campaign. */
export const confirmUpload = (campaignSlug: string, imageId: string, label: string) =>
  call(api.POST('/api/campaigns/{campaignSlug}/assets/confirm-upload', { params: { path: { campaignSlug } }, body: { imageId, label } }));

const hasUploadedImage = (nodes: unknown): boolean =>
  Array.isArray(nodes) && nodes.some((n: { type?: unknown; assetId?: unknown; children?: unknown }) => (n.type === 'image' && typeof n.assetId === 'number') || hasUploadedImage(n.children));

function SuspendForSizes({ slug }: { slug: string }) {
  useSuspenseQuery(assetsQuery(slug));
  return null;
}

/** Inside the editor: when the text it opened with holds an uploaded image, suspends it (its fallback shows) until the images' sizes are known. */
export function AwaitImageSizes({ slug, value }: { slug: string | undefined; value: unknown }) {
  const [needed] = useState(() => slug !== undefined && hasUploadedImage(value));
  return needed ? createElement(SuspendForSizes, { slug: slug! }) : null;
}
