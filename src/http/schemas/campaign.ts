import { Type } from '@sinclair/typebox';
import type { CampaignRow } from '../../db/schema.js';
import { parseStoredRichText } from '../../domain/rich-text.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp } from './common.js';

export const Campaign = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  description: RichTextOut,
  userId: Type.String(),
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
  }),
});

export function presentCampaign(row: CampaignRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: parseStoredRichText(row.description),
    userId: row.user_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
