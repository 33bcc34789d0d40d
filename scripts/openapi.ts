// Writes the OpenAPI document the server serves: `npm run openapi -- --out openapi.json` (stdout
// without --out).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { servedDocument } from './openapi-document.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const text = `${JSON.stringify(await servedDocument(), null, 2)}\n`;
if (values.out) {
  fs.mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
  fs.writeFileSync(values.out, text);
} else {
  process.stdout.write(text);
}
