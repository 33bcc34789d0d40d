import { randomUUID } from 'node:crypto';
import type { Db } from '../database.js';
import type { UserRow } from '../schema.js';

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
