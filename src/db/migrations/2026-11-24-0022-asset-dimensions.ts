import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// An uploaded image's width and height in pixels, as a browser lays it out, read from the image's
// header bytes when it is stored (src/images/dimensions.ts), so rendered text can reserve its box.
// Null when unknown: every asset stored before this migration (the migration reads no files), and
// an image whose header does not say. Same meaning on both dialects.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('assets').addColumn('width', 'integer', (c) => c.check(sql`width > 0`)).execute();
  await db.schema.alterTable('assets').addColumn('height', 'integer', (c) => c.check(sql`height > 0`)).execute();
}
