import { loadArcDetails, type ArcDetail } from '../../db/repositories/arcs.js';
import { readChanges } from '../../db/repositories/changes.js';
import { changeKindOf, encodeChangeCursor, parseChangesQuery } from '../../domain/changes.js';
import { errors } from '../../domain/errors.js';
import { campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { presentArc } from '../schemas/arc.js';
import { presentAsset } from '../schemas/asset.js';
import { presentCampaign } from '../schemas/campaign.js';
import { ChangesPage, ChangesQuerystring } from '../schemas/changes.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { presentThing } from '../schemas/thing.js';
import { presentThingType } from '../schemas/thing-type.js';
import { countThingsByType } from '../../db/repositories/thing-types.js';

// The changes feed (CONTRACT "Portability"): what changed in a campaign since a cursor, deletions
// included, for apps that keep a copy in sync. The owner and game masters only.
export function changesRoutes(app: AppInstance) {
  const { database, config } = app;

  app.get(
    '/campaigns/:campaignSlug/changes',
    {
      config: { auth: 'campaign', role: 'gm' },
      attachValidation: true,
      schema: {
        operationId: 'listChanges',
        summary: 'What changed since a cursor',
        description:
          'Every record of the campaign that changed after `since` (from the beginning without it), once each in its latest state, in commit order: ' +
          '`upsert` with the record as its GET returns it, or `delete` (a tombstone; deletions by cascade included: a type’s things, a thing’s or an arc’s links). ' +
          'Page with `since=cursor` while `more` is true; then poll with the last `cursor`: a client that applies every page holds exactly the campaign. ' +
          'An arc’s answer carries its things, parent and children, so their changes also list the arc; a thing type’s carries its `thingCount`, so a thing created, deleted or moved to another type also lists its types. ' +
          'Tombstones are kept CHANGES_RETENTION_DAYS (90); a cursor from before the oldest kept is 410 `cursor_expired` (start again without `since`). A malformed cursor is 400. Owner and game masters.',
        tags: ['changes'],
        params: CampaignParams,
        querystring: ChangesQuerystring,
        response: { 200: ChangesPage, ...problems(400, 401, 403, 404, 410) },
      },
    },
    async (request) => {
      const parsed = parseChangesQuery(request.query);
      if (!parsed.ok) throw errors.invalidQuery(parsed.issues);
      const { since, continuing, limit } = parsed.value;
      const campaign = campaignOf(request);
      const view = viewOf(request);
      const page = await readChanges(database.kysely, campaign.id, since, limit);
      if (continuing && since.version < page.floor) throw errors.cursorExpired(config.changesRetentionDays);
      const details = new Map<number, ArcDetail>();
      for (const detail of await loadArcDetails(database.kysely, view, page.rows.flatMap((row) => (row.arc ? [row.arc] : [])))) details.set(detail.arc.id, detail);

      // Thing types answer their thingCount: one statement for the page, only when it lists a type.
      const typeCounts = page.rows.some((row) => row.thingType) ? await countThingsByType(database.kysely, view) : new Map<number, number>();
      const changes = page.rows.map((row) => {
        const kind = changeKindOf(row.position.kind);
        const id = kind === 'link' ? `${row.position.recordId}:${row.position.otherId}` : row.position.recordId;
        let record: unknown;
        if (!row.deleted) {
          if (kind === 'campaign') record = presentCampaign(campaign, view);
          else if (row.thing) record = presentThing(row.thing, view);
          else if (row.arc) record = presentArc(details.get(row.arc.id)!, view);
          else if (row.thingType) record = presentThingType(row.thingType, typeCounts.get(row.thingType.id) ?? 0);
          else if (row.asset) record = presentAsset(row.asset);
          else if (row.linkCreatedAt !== undefined) record = { thingId: row.position.recordId, arcId: row.position.otherId, createdAt: row.linkCreatedAt };
        }
        // A record gone between the feed row and its read (never within one statement) reads as deleted.
        return record === undefined ? { kind, op: 'delete' as const, id } : { kind, op: 'upsert' as const, id, record };
      });
      const last = page.rows.at(-1);
      return { changes, cursor: encodeChangeCursor(last ? last.position : since), more: page.more };
    },
  );
}
