import { Type } from '@sinclair/typebox';
import type { AssetRow } from '../../db/schema.js';
import { Name, Timestamp } from './common.js';
import { assetVariants } from '../../images/variant-names.js';

export const Asset = Type.Object({
  id: Type.Integer(),
  label: Type.String({ description: 'alt text and caption of the image where it is used' }),
  imageHostId: Type.String({ description: 'the imageId that upload-url returned and confirm-upload took (32 hex digits)' }),
  url: Type.String({ description: 'public URL of the image' }),
  campaignId: Type.Integer(),
  userId: Type.String({ description: 'the user who uploaded it' }),
  width: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description:
      "the image's width in pixels as a browser lays it out (EXIF rotation applied), read from the file's header when it was stored; null when unknown (images stored before dimensions were recorded, or whose header does not say)",
  }),
  height: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "the image's height in pixels, as `width`; null exactly when `width` is" }),
  variants: Type.Array(
    Type.Object({
      width: Type.Integer({ minimum: 1, description: 'its width in pixels' }),
      height: Type.Integer({ minimum: 1, description: 'its height in pixels' }),
      url: Type.String({ description: 'its public URL (WebP; immutable like the original)' }),
    }),
    {
      description:
        'smaller WebP copies of the image for small screens, narrowest first: at widths 480, 960 and 1600 below the original\'s, then one at its full width (so a 600-pixel image has 480 and 600). Made when the upload is confirmed (confirm waits for them) or the image imported; empty when they could not be made (unknown dimensions, an animated GIF, more than 24 megapixels, a file the decoder refuses) and for images stored before variants existed: show `url` then. They go with the image. Use them as an `img` `srcset` (`<url> <width>w`), as rendered HTML does.',
    },
  ),
  createdAt: Timestamp,
});

// Types only: the label's rules are checked in code, so each problem comes with its pointer.
export const UploadUrlBody = Type.Object({ label: Name });

export const UploadUrlResponse = Type.Object({
  success: Type.Literal(true),
  uploadURL: Type.String({
    description:
      'where to send the file within 30 minutes: PUT the raw bytes, or (local host) POST multipart/form-data with a "file" field. At most MAX_UPLOAD_BYTES; PNG, JPEG, GIF, WebP or AVIF.',
  }),
  imageId: Type.String({ description: '32 hex digits; confirm the upload with it' }),
});

export const ConfirmUploadBody = Type.Object({
  imageId: Type.String({ description: 'as returned by upload-url' }),
  label: Name,
});

export const ConfirmUploadResponse = Type.Object({
  success: Type.Literal(true),
  url: Type.String({ description: 'public URL of the image' }),
  asset: Asset,
});

export const AssetParams = Type.Object({ campaignSlug: Type.String(), id: Type.String() });

export function presentAsset(row: AssetRow) {
  return {
    id: row.id,
    label: row.label,
    imageHostId: row.image_id,
    url: row.url,
    campaignId: row.campaign_id,
    userId: row.user_id,
    width: row.width ?? null,
    height: row.height ?? null,
    variants: assetVariants(row),
    createdAt: row.created_at,
  };
}
