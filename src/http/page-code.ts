// The code a page of the web app needs on a first load, named in that page's HTML so the browser
// fetches it beside the app's entry, not after the entry has run and asked for it (one round trip
// less before a phone can draw the page: issue 27's largest-paint budget). Read from the build's
// manifest (Vite's `.vite/manifest.json`): a page's modules, the chunks they import, and their
// stylesheets, less what index.html already loads. Hints are code only, the same for every caller:
// no data, so nothing that depends on who asks or on the tab's "View as player".

/** A chunk of Vite's build manifest (the fields used here). */
export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

/**
 * The app's pages and the modules each one loads (web/src/app/routes.tsx: a campaign's pages are drawn
 * inside its frame, app/campaign-shell.tsx). A page path not listed gets no hints.
 */
export const PAGE_MODULES: readonly (readonly [RegExp, readonly string[]])[] = [
  [/^\/(?:campaigns\/?)?$/, ['src/campaigns/campaigns-page.tsx']],
  [/^\/sign-(?:in|up)\/?$/, ['src/account/auth.tsx']],
  [/^\/join\/?$/, ['src/members/join-page.tsx']],
  [/^\/reset-password\/?$/, ['src/account/reset-password.tsx']],
  [/^\/account\/?$/, ['src/account/account-page.tsx']],
  [/^\/import\/?$/, ['src/import/import-page.tsx']],
  [/^\/campaigns\/[^/]+\/?$/, ['src/app/campaign-shell.tsx', 'src/campaigns/campaign-home.tsx']],
  [/^\/campaigns\/[^/]+\/things\/[^/]+\/?$/, ['src/app/campaign-shell.tsx', 'src/things/thing-page.tsx']],
  [/^\/campaigns\/[^/]+\/arcs\/[^/]+\/?$/, ['src/app/campaign-shell.tsx', 'src/arcs/arc-page.tsx']],
  [/^\/campaigns\/[^/]+\/types\/[^/]+\/?$/, ['src/app/campaign-shell.tsx', 'src/things/thing-type-page.tsx']],
  [/^\/campaigns\/[^/]+\/search\/?$/, ['src/app/campaign-shell.tsx', 'src/search/search-page.tsx']],
  [/^\/campaigns\/[^/]+\/members\/?$/, ['src/app/campaign-shell.tsx', 'src/members/members-page.tsx']],
  [/^\/campaigns\/[^/]+\/trash\/?$/, ['src/app/campaign-shell.tsx', 'src/history/trash-page.tsx']],
];

/** The manifest's chunk of a source module: by its path, or (a chunk Vite named after it) by its name. */
export function chunkOf(manifest: Manifest, module: string): string | undefined {
  const name = module.replace(/^.*\//, '').replace(/\.tsx?$/, '');
  return Object.keys(manifest).find((key) => manifest[key]!.src === module) ?? Object.keys(manifest).find((key) => !manifest[key]!.src && manifest[key]!.name === name);
}

/**
 * The `<link>` elements for each listed page: `modulepreload` for its scripts, `preload` for its
 * stylesheets (applied when the page's code asks for them, as without the hint, so the first paint
 * waits for nothing more). Throws when a listed module is not in the build: a page renamed in the
 * app and not here is a failed start, not hints that silently stop working.
 */
export function pageHints(manifest: Manifest): (pathname: string) => string {
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  if (!entry) throw new Error('the web app build has no entry in its manifest');
  // Already in index.html: the entry, the chunks it imports, and their stylesheets.
  const loaded = new Set<string>();
  const walk = (key: string, into: Set<string>, styles: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || chunk.isEntry || into.has(chunk.file) || loaded.has(chunk.file)) return;
    into.add(chunk.file);
    for (const css of chunk.css ?? []) if (!loaded.has(css)) styles.add(css);
    for (const imported of chunk.imports ?? []) walk(imported, into, styles);
  };
  loaded.add(entry.file);
  for (const css of entry.css ?? []) loaded.add(css);
  for (const imported of entry.imports ?? []) {
    const chunk = manifest[imported];
    if (chunk) loaded.add(chunk.file);
  }
  const hints = PAGE_MODULES.map(([pattern, modules]) => {
    const scripts = new Set<string>();
    const styles = new Set<string>();
    for (const module of modules) {
      const key = chunkOf(manifest, module);
      if (!key) throw new Error(`the web app build has no chunk for ${module} (src/http/page-code.ts PAGE_MODULES)`);
      walk(key, scripts, styles);
    }
    const links = [...[...scripts].map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`), ...[...styles].map((file) => `<link rel="preload" as="style" crossorigin href="/${file}">`)];
    return [pattern, links.join('\n    ')] as const;
  });
  return (pathname) => hints.find(([pattern]) => pattern.test(pathname))?.[1] ?? '';
}
