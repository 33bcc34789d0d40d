// Writes the web app's API types (web/src/api/schema.d.ts) from the OpenAPI document the server
// serves, with openapi-typescript: `npm run generate:client`. A unit test regenerates them and
// fails when the committed file differs, so the app's client always matches the served API.
import fs from 'node:fs';
import { clientTypes, CLIENT_TYPES_PATH } from './client-types.js';

fs.writeFileSync(CLIENT_TYPES_PATH, await clientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
