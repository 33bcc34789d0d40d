// The web app's API client is generated from the OpenAPI document (npm run generate:client): this
// fails when the committed types differ from what the server serves now, so a change to a route
// cannot leave the app's client behind.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes, CLIENT_TYPES_PATH } from '../../scripts/client-types.js';

describe('the web app’s generated API types', () => {
  it('equal what openapi-typescript makes of the served document (run npm run generate:client)', async () => {
    const committed = fs.readFileSync(CLIENT_TYPES_PATH, 'utf8');
    const generated = await clientTypes();
    expect(committed === generated, 'web/src/api/schema.d.ts is stale: run npm run generate:client').toBe(true);
  }, 60_000);
});
