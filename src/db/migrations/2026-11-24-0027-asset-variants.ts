import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Whether an uploaded image's WebP variants for phones were made (src/images/variants.ts): 1 when
// every one its width calls for is stored beside it, else 0. Which ones follow from its width, so
// nothing else is recorded. Every asset stored before this migration has none (its original is served).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('assets')
    .addColumn('has_variants', 'integer', (c) => c.notNull().defaultTo(0).check(sql`has_variants in (0, 1)`))
    .execute();
}
