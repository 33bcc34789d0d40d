import { Type } from '@sinclair/typebox';
import type { TrashSummary } from '../../db/repositories/trash.js';
import type { TrashedCampaign } from '../../db/repositories/trashed-campaigns.js';
import { Arc } from './arc.js';
import { Asset } from './asset.js';
import { Campaign } from './campaign.js';
import { Slug, Timestamp } from './common.js';
import { Thing } from './thing.js';
import { ThingType } from './thing-type.js';

export const TrashKindSchema = Type.Unsafe<'thing' | 'arc' | 'thing-type' | 'asset'>({
  type: 'string',
  enum: ['thing', 'arc', 'thing-type', 'asset'],
  description: 'what was deleted',
});

const Deleter = Type.Union([Type.Object({ userId: Type.String(), name: Type.String() }), Type.Null()], {
  description: 'who deleted it (`name` as the account is named now, or was then if it is gone); null for a delete made from the command line',
});

const Along = Type.Object(
  {
    things: Type.Integer({ minimum: 0 }),
    arcs: Type.Integer({ minimum: 0 }),
    links: Type.Integer({ minimum: 0 }),
  },
  { description: 'how many things, arcs and thing–arc links went with it' },
);

export const TrashEntry = Type.Object({
  kind: TrashKindSchema,
  id: Type.Integer({ description: 'the deleted record’s id (restore and erase name it)' }),
  slug: Type.Union([Slug, Type.Null()], { description: 'the slug it had (things and arcs); null for thing types and assets' }),
  name: Type.String({ description: 'its name (an asset’s label)' }),
  deletedAt: Timestamp,
  deletedBy: Deleter,
  with: Along,
});

export const TrashParams = Type.Object({
  campaignSlug: Type.String(),
  kind: Type.String({ description: '`thing`, `arc`, `thing-type` or `asset`' }),
  id: Type.String({ description: 'the record id, a positive integer' }),
});

export const RestoredFromTrash = Type.Object({
  record: Type.Union([Thing, Arc, ThingType, Asset], { description: 'the record as its own GET answers it (a thing, an arc, a thing type or an asset, per `kind`)' }),
  kind: TrashKindSchema,
  slug: Type.Union([Slug, Type.Null()], { description: 'the slug it came back with (things and arcs; null otherwise)' }),
  slugChanged: Type.Boolean({ description: 'true when a record took its old slug meanwhile, so it came back with the next free `-2`, `-3`…' }),
  restored: Type.Object(
    { things: Type.Integer({ minimum: 0 }), arcs: Type.Integer({ minimum: 0 }), links: Type.Integer({ minimum: 0 }) },
    { description: 'what came back with it: a type’s things, an arc’s children moved back under it, links to records that still exist' },
  ),
});

export const TrashedCampaignSchema = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  deletedAt: Timestamp,
  deletedBy: Deleter,
});

export const TrashedCampaignParams = Type.Object({ id: Type.String({ description: 'the campaign id, a positive integer' }) });

export const RestoredCampaign = Type.Object({
  record: Campaign,
  slug: Slug,
  slugChanged: Type.Boolean({ description: 'true when another campaign took its old slug meanwhile, so it came back with `-2`, `-3`…' }),
});

function deleter(userId: string | null, name: string | null) {
  return userId === null ? null : { userId, name: name ?? '' };
}

export function presentTrashEntry(row: TrashSummary) {
  return {
    kind: row.kind,
    id: row.record_id,
    slug: row.slug,
    name: row.name,
    deletedAt: row.deleted_at,
    deletedBy: deleter(row.deleted_by, row.deleted_by_current_name ?? row.deleted_by_name),
    with: { things: row.with_things, arcs: row.with_arcs, links: row.with_links },
  };
}

export function presentTrashedCampaign(row: TrashedCampaign) {
  return { id: row.id, slug: row.slug, name: row.name, deletedAt: row.deleted_at, deletedBy: deleter(row.deleted_by, row.deleted_by_name) };
}
