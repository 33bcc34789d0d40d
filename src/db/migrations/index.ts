import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import * as initial from './2026-11-20-0001-initial.js';

export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

// Every migration, in order. Names are permanent: they are recorded in kysely_migration.
export const migrations: Record<string, DialectMigration> = {
  '2026-11-20-0001-initial': initial,
};
