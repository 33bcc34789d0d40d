import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// An asset's `imageHostId` is the imageId that upload-url returned and confirm-upload took (the
// CONTRACT: a client matches an asset to its upload), read from `image_id`. Where the host keeps
// the file (`1/<imageId>.png` for the local host, `images/1/<imageId>.png` in S3) was answered as
// imageHostId before; it stays, as internal data, under the name that says what it is.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`alter table assets rename column host_id to storage_key`.execute(db);
}
