import { Type } from '@sinclair/typebox';
import type { CampaignRow } from '../../db/schema.js';
import { richTextFor, type View } from '../../access/view.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp } from './common.js';
import { shownUpdatedAt } from '../../access/players-see.js';

const DEFAULT_VISIBILITY_DESCRIPTION =
  'The `visibility` a thing or arc created without one takes: `all` (the default: every member sees it) or `gm` (GM-only). Set by the owner or a game master.';
const DefaultVisibility = Type.Unsafe<'all' | 'gm'>({ type: 'string', enum: ['all', 'gm'], description: DEFAULT_VISIBILITY_DESCRIPTION });

export const Campaign = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  description: RichTextOut,
  userId: Type.String({ description: 'the owner' }),
  role: Type.Unsafe<'owner' | 'gm' | 'player'>({
    type: 'string',
    enum: ['owner', 'gm', 'player'],
    description: 'the caller’s role in the campaign (`player` while an owner or game master views it as players do)',
  }),
  defaultVisibility: DefaultVisibility,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const NewCampaignBody = Type.Object({
  newCampaign: Type.Object({ name: Name, description: Type.Optional(RichTextSchema) }),
});

export const UpdatedCampaignBody = Type.Object({
  updatedCampaign: Type.Object({
    slug: Type.Optional(Type.String()),
    name: Type.Optional(Name),
    description: Type.Optional(RichTextSchema),
    defaultVisibility: Type.Optional(DefaultVisibility),
  }),
});

/** The campaign as this view reads it, with the view's role. */
export function presentCampaign(row: CampaignRow, view: View) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: richTextFor(view, row.description),
    userId: row.user_id,
    role: view.role,
    defaultVisibility: row.default_visibility,
    createdAt: row.created_at,
    updatedAt: shownUpdatedAt(view, row),
  };
}
