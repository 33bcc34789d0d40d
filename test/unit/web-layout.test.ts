// The web app laid out by feature (issue 27, README "Layout"): a feature's API calls and query keys
// live in its api.ts, so no component calls the client or spells a query key by hand. This test
// lists every offender; it fails as soon as a component does either.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WEB = path.resolve(import.meta.dirname, '../../web/src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The files allowed to call the client and build keys: each feature's api.ts, and the client itself. */
const isApiModule = (file: string) => path.basename(file) === 'api.ts' || path.basename(file).endsWith('-api.ts') || file.startsWith(path.join(WEB, 'api') + path.sep);

const offences = (pattern: RegExp) =>
  sources(WEB)
    .filter((file) => !isApiModule(file))
    .map((file) => path.relative(WEB, file))
    .filter((file) => pattern.test(fs.readFileSync(path.join(WEB, file), 'utf8')));

describe('the web app by feature', () => {
  it('calls the API only from the features’ api.ts modules', () => {
    expect(offences(/\bapi\.(GET|POST|PUT|PATCH|DELETE)\(/)).toEqual([]);
  });

  it('spells query keys only in the features’ api.ts modules', () => {
    expect(offences(/queryKey:\s*\[/)).toEqual([]);
  });

  it('is laid out in the feature folders the README names', () => {
    const folders = fs.readdirSync(WEB, { withFileTypes: true }).filter((e) => e.isDirectory() && sources(path.join(WEB, e.name)).length > 0).map((e) => e.name).sort();
    expect(folders).toEqual(['account', 'api', 'app', 'arcs', 'campaigns', 'editor', 'history', 'import', 'members', 'records', 'search', 'things', 'ui'].sort());
  });
});
