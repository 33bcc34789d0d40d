import { describe, expect, it } from 'vitest';
import { fullView, makeView, type View } from '../../src/access/view.js';
import { migrateToLatest, migrator } from '../../src/db/migrate.js';
import { searchCampaign } from '../../src/db/repositories/search.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// Migration 0011 (CONTRACT "Secrets that hold": mentions store no name): a database holding rows
// the old editor wrote, mentions whose children are the target's name, comes out with those
// children emptied, labels kept, the changes feed and the derived indexes following.

const now = new Date().toISOString();
const t = (text: string, marks: Record<string, boolean> = {}) => ({ text, ...marks });
const p = (...children: unknown[]) => ({ type: 'paragraph', children });
const mention = (targetType: 'thing' | 'arc', targetId: number, ...children: unknown[]) => ({ type: 'mention', targetType, targetId, children });
const bare = (targetType: 'thing' | 'arc', targetId: number) => mention(targetType, targetId, t(''));

describe(`migration 0011 (mention names) on ${dialect}`, () => {
  it('empties the children of mentions that hold their target’s name, keeps labels, and rebuilds the indexes', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      expect((await migrator(database).migrateTo('2026-11-23-0010-changes')).error).toBeUndefined();
      const db = database.kysely;
      await db.insertInto('users').values({ id: 'u1', email: 'a@example.com', email_normalized: 'a@example.com', name: 'A', password_hash: 'x', created_at: now }).execute();
      const campaign = await db
        .insertInto('campaigns')
        .values({ slug: 'old', name: 'Old', user_id: 'u1', version: 1, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      const typeId = (
        await db
          .insertInto('thing_types')
          .values({ campaign_id: campaign.id, name: 'NPCs', name_key: 'npcs', version: 1, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      const thing = async (slug: string, name: string, visibility: 'all' | 'gm', description: unknown[] | null) =>
        (
          await db
            .insertInto('things')
            .values({
              campaign_id: campaign.id,
              type_id: typeId,
              slug,
              name,
              visibility,
              description: description === null ? null : JSON.stringify(description),
              version: 3,
              created_at: now,
              updated_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      const nezznar = await thing('nezznar', 'Nezznar the Black Spider', 'gm', null);
      const sildar = await thing('sildar', 'Sildar Hallwinter', 'all', null);
      const quiet = await thing('quiet', 'Quiet Town', 'all', [p(t('Nothing to see.'))]);
      const caveDescription = [
        p(t('Lair of '), mention('thing', nezznar, t('Nezznar the Black Spider')), t('.')),
        // Marks split the name across leaves: still the name.
        p(mention('thing', nezznar, t('Nezz'), t('nar the Black Spider', { bold: true }))),
        p(t('Guarded by '), mention('thing', sildar, t('the knight')), t(' and '), mention('thing', 9999, t('Ghost'))),
        {
          type: 'bulleted-list',
          children: [{ type: 'list-item', isSecret: true, children: [p(t('Secret: '), mention('thing', quiet, t('Quiet Town')), t(' hollowquartzsigil'))] }],
        },
      ];
      const cave = await thing('cave', 'Wave Echo Cave', 'all', caveDescription);
      const arc = (
        await db
          .insertInto('arcs')
          .values({
            campaign_id: campaign.id,
            slug: 'spider',
            name: 'The Spider’s Web',
            hook: JSON.stringify([p(mention('thing', sildar, t('Sildar Hallwinter')))]),
            notes: JSON.stringify([p(mention('arc', 1, t('the web')))]),
            version: 2,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      await db
        .updateTable('campaigns')
        .set({ description: JSON.stringify([p(t('Start: '), mention('arc', arc, t('The Spider’s Web')))]) })
        .where('id', '=', campaign.id)
        .execute();
      const versionBefore = (await db.selectFrom('campaigns').select('content_version').where('id', '=', campaign.id).executeTakeFirstOrThrow()).content_version;
      const quietBefore = await db.selectFrom('things').select('description').where('id', '=', quiet).executeTakeFirstOrThrow();

      const applied = await migrateToLatest(database);
      expect(applied).toContain('2026-11-24-0011-mention-names');
      expect(await db.selectFrom('index_rebuilds').selectAll().execute()).toEqual([]);

      const stored = await db.selectFrom('things').select(['description', 'version', 'updated_at']).where('id', '=', cave).executeTakeFirstOrThrow();
      expect(JSON.parse(stored.description!)).toEqual([
        p(t('Lair of '), bare('thing', nezznar), t('.')),
        p(bare('thing', nezznar)),
        p(t('Guarded by '), mention('thing', sildar, t('the knight')), t(' and '), mention('thing', 9999, t('Ghost'))),
        { type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [p(t('Secret: '), bare('thing', quiet), t(' hollowquartzsigil'))] }] },
      ]);
      // Not an edit: the record's version and updatedAt stay.
      expect(stored.version).toBe(3);
      expect(stored.updated_at).toBe(now);
      const storedArc = await db.selectFrom('arcs').select(['hook', 'notes']).where('id', '=', arc).executeTakeFirstOrThrow();
      expect(JSON.parse(storedArc.hook!)).toEqual([p(bare('thing', sildar))]);
      expect(JSON.parse(storedArc.notes!)).toEqual([p(mention('arc', 1, t('the web')))]);
      const storedCampaign = await db.selectFrom('campaigns').select(['description', 'content_version']).where('id', '=', campaign.id).executeTakeFirstOrThrow();
      expect(JSON.parse(storedCampaign.description!)).toEqual([p(t('Start: '), bare('arc', arc))]);
      // A row without such a mention is untouched, byte for byte.
      expect(await db.selectFrom('things').select('description').where('id', '=', quiet).executeTakeFirstOrThrow()).toEqual(quietBefore);

      // The changes feed shows the rewritten records after every cursor handed out before.
      expect(storedCampaign.content_version).toBeGreaterThan(versionBefore);
      const changed = await db.selectFrom('changes').select(['kind', 'record_id']).where('campaign_id', '=', campaign.id).where('version', '>', versionBefore).orderBy('kind').orderBy('record_id').execute();
      expect(changed).toEqual(expect.arrayContaining([{ kind: 3, record_id: cave }, { kind: 4, record_id: arc }]));

      // The mentions index, rebuilt: the mention inside the secret list item is secret, the others not.
      const rows = await db.selectFrom('mentions').select(['target_id', 'secret']).where('thing_id', '=', cave).orderBy('target_id').execute();
      expect(rows).toEqual(
        [
          { target_id: nezznar, secret: 0 },
          { target_id: sildar, secret: 0 },
          { target_id: quiet, secret: 1 },
          { target_id: 9999, secret: 0 },
        ].sort((a, b) => a.target_id - b.target_id),
      );
      const viewCampaign = { ...storedCampaign, ...campaign, content_version: storedCampaign.content_version };
      const player = { ...makeView(viewCampaign, 'player', false), hidden: { things: new Set([nezznar]), arcs: new Set<number>() } };
      const search = async (view: View, text: string) => (await searchCampaign(database, viewCampaign, view, { text, type: 'any', limit: 20 })).hits.map((hit) => hit.slug);
      // A secret list item's words are in no player's document; a game master finds them.
      expect(await search(player, 'hollowquartzsigil')).toEqual([]);
      expect(await search(fullView(viewCampaign), 'hollowquartzsigil')).toEqual(['cave']);
      // The GM-only record's name is nowhere a player's search reaches.
      expect(await search(player, 'spider')).not.toContain('cave');
      // A label is the GM's text: a game master finds it.
      expect(await search(fullView(viewCampaign), 'knight')).toEqual(['cave']);
    } finally {
      await database.close();
    }
  });
});
