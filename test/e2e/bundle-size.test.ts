// The first visit to a thing page downloads at most 120 KB of JavaScript, Brotli (issue 27:
// a GM at the table on a phone). Measured on the build's module graph (Vite's manifest): the
// entry index.html loads, its static imports, and the route chunks the router loads at once for
// /campaigns/:slug/things/:slug (the campaign's frame and the thing page) with theirs. What a page
// loads later (the editor, the quick switcher, the history panel) is not counted. Sizes of a
// build are deterministic, so this is a test; the figures are printed, per file, Brotli and gzip.
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';
import { pageHints, PAGE_MODULES } from '../../src/http/page-code.js';

/** Brotli, what the server sends a browser (static files precompressed at build time). */
const BUDGET = 120 * 1000;
/** gzip, for a client without Brotli (plain-HTTP origins, for one): a guard, not the target. */
const GZIP_GUARD = 140 * 1000;

interface Chunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

/** The chunks a first visit to `routeModules` loads: the entry's static graph and theirs. */
function initialChunks(manifest: Record<string, Chunk>, routeModules: string[]): Set<string> {
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest`);
    if (files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entry) throw new Error('the manifest has no entry');
  visit(entry);
  for (const module of routeModules) {
    // A page module is its own chunk, or shared (and then keyed by the chunk's name).
    const key = Object.keys(manifest).find((k) => manifest[k]!.src === module || manifest[k]!.name === path.basename(module, '.tsx'));
    if (!key) throw new Error(`no chunk holds ${module}`);
    expect(manifest[entry]!.dynamicImports, `${module} is loaded on demand`).toContain(key);
    visit(key);
  }
  return files;
}

describe('the web app bundle', () => {
  it('loads at most 120 KB of JavaScript, Brotli-compressed, on a first visit to a thing page', () => {
    const { webRoot } = inject('e2e');
    const manifest = JSON.parse(fs.readFileSync(path.join(webRoot, '.vite/manifest.json'), 'utf8')) as Record<string, Chunk>;
    const html = fs.readFileSync(path.join(webRoot, 'index.html'), 'utf8');
    const files = initialChunks(manifest, ['src/app/campaign-shell.tsx', 'src/things/thing-page.tsx']);
    // index.html names only what the manifest says it does (no script the graph misses).
    const referenced = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(referenced.length).toBeGreaterThanOrEqual(1);
    for (const file of referenced) expect(files).toContain(file);
    // The editor (Slate) is not among them.
    const editor = Object.values(manifest).find((chunk) => chunk.src === 'src/editor/editor.tsx');
    expect(editor && files.has(editor.file)).toBe(false);
    let brotli = 0;
    let gzip = 0;
    let raw = 0;
    const lines: string[] = [];
    for (const file of [...files].sort()) {
      const bytes = fs.readFileSync(path.join(webRoot, file));
      const b = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
      const g = gzipSync(bytes, { level: 9 }).length;
      raw += bytes.length;
      brotli += b;
      gzip += g;
      lines.push(`${file}: ${(bytes.length / 1000).toFixed(1)} KB, ${(b / 1000).toFixed(1)} KB Brotli, ${(g / 1000).toFixed(1)} KB gzip`);
    }
    console.log(
      `web app, JavaScript of a first visit to a thing page (${files.size} files):\n${lines.join('\n')}\n` +
        `total ${(raw / 1000).toFixed(1)} KB, ${(brotli / 1000).toFixed(1)} KB Brotli, ${(gzip / 1000).toFixed(1)} KB gzip (budget ${BUDGET / 1000} KB Brotli, ${GZIP_GUARD / 1000} KB gzip)`,
    );
    expect(brotli).toBeLessThanOrEqual(BUDGET);
    expect(gzip).toBeLessThanOrEqual(GZIP_GUARD);
  });

  it('names in each page’s HTML the code a first visit to it loads, beyond index.html’s, and every page of the router has its entry', () => {
    const { webRoot } = inject('e2e');
    const manifest = JSON.parse(fs.readFileSync(path.join(webRoot, '.vite/manifest.json'), 'utf8')) as Record<string, Chunk>;
    const hints = pageHints(manifest);
    const fromIndex = initialChunks(manifest, []);
    for (const [sample, modules] of [
      ['/', ['src/campaigns/campaigns-page.tsx']],
      ['/sign-up', ['src/account/auth.tsx']],
      ['/campaigns/c', ['src/app/campaign-shell.tsx', 'src/campaigns/campaign-home.tsx']],
      ['/campaigns/c/things/t', ['src/app/campaign-shell.tsx', 'src/things/thing-page.tsx']],
      ['/campaigns/c/arcs/a', ['src/app/campaign-shell.tsx', 'src/arcs/arc-page.tsx']],
      ['/campaigns/c/types/1', ['src/app/campaign-shell.tsx', 'src/things/thing-type-page.tsx']],
      ['/campaigns/c/search', ['src/app/campaign-shell.tsx', 'src/search/search-page.tsx']],
    ] as const) {
      const named = [...hints(sample).matchAll(/rel="modulepreload" crossorigin href="\/([^"]+)"/g)].map((m) => m[1]!).sort();
      expect(named, sample).toEqual([...initialChunks(manifest, [...modules])].filter((file) => !fromIndex.has(file)).sort());
    }
    // Every page module the router loads (web/src/app/routes.tsx) is listed for some page path.
    const routes = fs.readFileSync(path.resolve(import.meta.dirname, '../../web/src/app/routes.tsx'), 'utf8');
    const loaded = [...routes.matchAll(/import\('\.\.?\/([^']+)'\)/g)].map((m) => `src/${m[0].includes("'./") ? 'app/' : ''}${m[1]}.tsx`);
    expect(loaded.length).toBeGreaterThan(10);
    const listed = new Set(PAGE_MODULES.flatMap(([, modules]) => modules));
    for (const module of loaded) expect(listed, module).toContain(module);
  });
});
