import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { View } from '../../src/access/view.js';
import { arcEtag, expectedVersion, ifNoneMatchAdmits } from '../../src/http/conditional.js';

const gm: View = { campaignId: 1, contentVersion: 7, memberRole: 'gm', role: 'gm', players: false };
const ifMatch = (value: string) => expectedVersion({ headers: { 'if-match': value } } as unknown as FastifyRequest)!;

const arc = fc.record({ id: fc.integer({ min: 1, max: 2 ** 31 }), version: fc.integer({ min: 1, max: 2 ** 31 }) });
const answer = fc.record({ name: fc.string(), things: fc.array(fc.integer({ min: 1 }), { maxLength: 5 }) });

describe('arcEtag', () => {
  it('moves with the answer, and If-Match reads it (as sent or compressed) as the arc’s own version', () => {
    fc.assert(
      fc.property(arc, answer, answer, fc.constantFrom('', '-br', '-gzip'), (record, one, other, encoding) => {
        const tag = arcEtag(gm, record, one);
        expect(tag).toMatch(new RegExp(`^"${record.id}-${record.version}-a[0-9a-f]{16}"$`));
        expect(arcEtag(gm, record, { ...one })).toBe(tag);
        if (JSON.stringify(one) !== JSON.stringify(other)) expect(arcEtag(gm, record, other)).not.toBe(tag);
        const sent = tag.replace(/"$/, `${encoding}"`);
        expect(ifNoneMatchAdmits(sent, tag)).toBe(true);
        expect(ifMatch(sent).admits(record.id, record.version)).toBe(true);
        expect(ifMatch(sent).admits(record.id, record.version + 1)).toBe(false);
        expect(ifMatch(sent).admits(record.id + 1, record.version)).toBe(false);
      }),
    );
  });

  it('is a player’s record tag for a player’s view (the response cache digests a player’s answer)', () => {
    expect(arcEtag({ ...gm, players: true, role: 'player' }, { id: 3, version: 2 }, { things: [] })).toBe('W/"p3-2-7"');
  });
});
