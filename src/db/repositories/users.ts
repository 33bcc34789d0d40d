import { randomUUID } from 'node:crypto';
import type { Db } from '../database.js';
import type { Role, UserRow } from '../schema.js';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createUser(
  db: Db,
  input: { email: string; name: string; passwordHash: string; now: string },
): Promise<UserRow> {
  const row: UserRow = {
    id: randomUUID(),
    email: input.email.trim(),
    email_normalized: normalizeEmail(input.email),
    name: input.name,
    password_hash: input.passwordHash,
    premium_until: null,
    created_at: input.now,
  };
  await db.insertInto('users').values(row).execute();
  return row;
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
}

/** Sets or clears premium; returns false when no user has that email. */
export async function setPremiumUntil(db: Db, email: string, until: string | null): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ premium_until: until })
    .where('email_normalized', '=', normalizeEmail(email))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** A campaign the user belongs to, with their role and how many members it has (them included). */
export interface Membership {
  id: number;
  slug: string;
  name: string;
  role: Role;
  members: number;
}

/** Every campaign the user is a member of, by id (the lock order of a write that takes several). One statement. */
export async function listMemberships(db: Db, userId: string): Promise<Membership[]> {
  const rows = await db
    .selectFrom('campaign_members as m')
    .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
    .select((eb) => [
      'c.id',
      'c.slug',
      'c.name',
      'm.role',
      eb.selectFrom('campaign_members as peers').select((e) => e.fn.countAll<number>().as('n')).whereRef('peers.campaign_id', '=', 'c.id').as('members'),
    ])
    .where('m.user_id', '=', userId)
    .orderBy('c.id')
    .execute();
  return rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, role: r.role, members: Number(r.members) }));
}

/**
 * The images the user uploaded to a campaign stay with it, now in its owner's name: they are part
 * of what the others wrote. Call after beginCampaignWrite of that campaign.
 */
export async function handAssetsToOwner(db: Db, campaignId: number, userId: string): Promise<void> {
  await db
    .updateTable('assets')
    .set((eb) => ({ user_id: eb.selectFrom('campaigns').select('campaigns.user_id').where('campaigns.id', '=', campaignId) }))
    .where('campaign_id', '=', campaignId)
    .where('user_id', '=', userId)
    .execute();
}

/** Deletes the user; sessions, tokens, reset links, memberships, invitations they made and upload grants go with it. */
export async function deleteUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

/** Deletes a campaign row (its records cascade). Call after beginCampaignWrite and queueCampaignImageRemovals. */
export async function deleteCampaignRecord(db: Db, campaignId: number): Promise<void> {
  await db.deleteFrom('campaigns').where('id', '=', campaignId).execute();
}
