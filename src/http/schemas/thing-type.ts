import { Type } from '@sinclair/typebox';
import type { ThingTypeRow } from '../../db/schema.js';
import { Name } from './common.js';

export const ThingType = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  campaignId: Type.Integer(),
});

export const ThingTypeParams = Type.Object({
  campaignSlug: Type.String(),
  thingTypeId: Type.String({ description: 'the thing type id, a positive integer' }),
});

export const NewThingTypeBody = Type.Object({
  newThingType: Type.Object({ name: Name }),
});

export const UpdatedThingTypeBody = Type.Object({
  updatedThingType: Type.Object({
    id: Type.Optional(Type.Integer({ description: 'when given, must equal the id in the path' })),
    name: Type.Optional(Name),
  }),
});

export function presentThingType(row: ThingTypeRow) {
  return { id: row.id, name: row.name, campaignId: row.campaign_id };
}
