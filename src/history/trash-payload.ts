// What a trash entry keeps: the rows its delete removed, as gzip-compressed JSON (rich text
// compresses about five to one, and a type's things can be many).
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ArcRow, AssetRow, ThingRow, ThingTypeRow } from '../db/schema.js';
import type { LinkRow, PreviousSlugRow } from '../db/repositories/trash.js';

export type TrashPayload =
  | { kind: 'thing'; thing: ThingRow; links: LinkRow[]; previousSlugs: PreviousSlugRow[] }
  | { kind: 'arc'; arc: ArcRow; children: number[]; links: LinkRow[]; previousSlugs: PreviousSlugRow[] }
  | { kind: 'thing-type'; type: ThingTypeRow; things: ThingRow[]; links: LinkRow[]; previousSlugs: PreviousSlugRow[] }
  | { kind: 'asset'; asset: AssetRow };

export function encodePayload(payload: TrashPayload): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(payload), 'utf8'));
}

export function decodePayload(bytes: Buffer | Uint8Array): TrashPayload {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as TrashPayload;
}
