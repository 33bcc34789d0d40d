import { Type } from '@sinclair/typebox';
import { CHANGE_KINDS } from '../../domain/changes.js';

export const Change = Type.Object({
  kind: Type.Unsafe<(typeof CHANGE_KINDS)[number]>({ type: 'string', enum: [...CHANGE_KINDS] }),
  op: Type.Unsafe<'upsert' | 'delete'>({ type: 'string', enum: ['upsert', 'delete'], description: '`upsert` carries `record`; `delete` is a tombstone' }),
  id: Type.Union([Type.Integer(), Type.String()], { description: 'the record’s id; for a link, "<thingId>:<arcId>"' }),
  record: Type.Optional(
    Type.Unknown({
      description:
        'With `upsert`: the record as its GET returns it (campaign: getCampaign; thing-type: getThingType; thing: getThing; arc: getArc; asset: an element of listAssets); a link is `{thingId, arcId, createdAt}`.',
    }),
  ),
});

export const ChangesPage = Type.Object({
  changes: Type.Array(Change, { description: 'in commit order; each record once, in its latest state' }),
  cursor: Type.String({ description: 'opaque: pass it as `since` for what changed after this page' }),
  more: Type.Boolean({ description: 'true while changes remain after this page: ask again at once with `since=cursor`' }),
});

export const ChangesQuerystring = Type.Object({
  since: Type.Optional(Type.String({ description: 'the `cursor` of an earlier answer; absent: from the beginning' })),
  limit: Type.Optional(Type.String({ description: 'changes per page, 1 to 1000; default 100' })),
});
