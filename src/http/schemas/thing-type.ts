import { Type } from '@sinclair/typebox';
import type { ThingTypeRow } from '../../db/schema.js';
import { Name } from './common.js';
import { parseStoredFields } from '../../domain/properties.js';
import { FieldsIn, FieldsOut } from './properties.js';

export const ThingType = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  campaignId: Type.Integer(),
  fields: FieldsOut,
  thingCount: Type.Integer({ minimum: 0, description: 'how many things of this type the caller sees (a player’s count leaves out GM-only things)' }),
});

export const ThingTypeParams = Type.Object({
  campaignSlug: Type.String(),
  thingTypeId: Type.String({ description: 'the thing type id, a positive integer' }),
});

export const NewThingTypeBody = Type.Object({
  newThingType: Type.Object({ name: Name, fields: Type.Optional(FieldsIn) }),
});

export const UpdatedThingTypeBody = Type.Object({
  updatedThingType: Type.Object({
    id: Type.Optional(Type.Integer({ description: 'when given, must equal the id in the path' })),
    name: Type.Optional(Name),
    fields: Type.Optional(FieldsIn),
  }),
});

export function presentThingType(row: ThingTypeRow, thingCount: number) {
  return { id: row.id, name: row.name, campaignId: row.campaign_id, fields: parseStoredFields(row.fields), thingCount };
}
