// The editor's own reads of the API. The campaign's images (GET …/assets, which game masters, the
// ones who edit, may list) give each uploaded image's width and height, so the editor reserves an
// image's box before it loads, as the rendered page does. Its key stands outside ['campaign', slug]:
// saving a text changes no image's size, so a save does not fetch the list again.
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';

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
