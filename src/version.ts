import { readFileSync } from 'node:fs';

// Read once at start from package.json, which sits one level above both src/ and dist/.
export const version: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
