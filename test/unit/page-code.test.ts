// The code a page of the web app needs, named in its HTML (src/http/page-code.ts), on a stand-in
// build manifest: a page's chunks and the chunks they import, less what index.html loads; its
// stylesheets as preloads; nothing for a path that is not a page; a start that fails when a page's
// module is not in the build. (On the real build: test/e2e/bundle-size.test.ts.)
import { describe, expect, it } from 'vitest';
import { chunkOf, pageHints, PAGE_MODULES, type Manifest } from '../../src/http/page-code.js';

/** A build where every page of PAGE_MODULES is a chunk importing the shared `record` chunk; the frame is a shared chunk named after it. */
function manifest(): Manifest {
  const built: Manifest = {
    'index.html': { file: 'assets/index-1.js', src: 'index.html', isEntry: true, imports: ['_vendor-1.js'], css: ['assets/index-1.css'] },
    '_vendor-1.js': { file: 'assets/vendor-1.js', name: 'vendor' },
    '_record-1.js': { file: 'assets/record-1.js', name: 'record', imports: ['_vendor-1.js', 'index.html'], css: ['assets/record-1.css'] },
    '_campaign-shell-1.js': { file: 'assets/campaign-shell-1.js', name: 'campaign-shell', imports: ['_vendor-1.js', 'index.html'] },
  };
  for (const [, modules] of PAGE_MODULES)
    for (const module of modules)
      if (!module.endsWith('campaign-shell.tsx')) built[module] = { file: `assets/${module.replace(/^.*\//, '').replace('.tsx', '')}-1.js`, src: module, imports: ['_vendor-1.js', '_record-1.js', 'index.html'] };
  return built;
}

const linksOf = (html: string) => [...html.matchAll(/<link rel="([a-z]+)"(?: as="style")? crossorigin href="([^"]+)">/g)].map((m) => `${m[1]} ${m[2]}`);

describe('the code named in a page of the web app', () => {
  it('is the page’s chunks and what they import, not what index.html loads, with its stylesheets preloaded', () => {
    const hints = pageHints(manifest());
    expect(linksOf(hints('/campaigns/lost-mine/things/gundren'))).toEqual([
      'modulepreload /assets/campaign-shell-1.js',
      'modulepreload /assets/thing-page-1.js',
      'modulepreload /assets/record-1.js',
      'preload /assets/record-1.css',
    ]);
    expect(linksOf(hints('/campaigns/lost-mine'))).toEqual(['modulepreload /assets/campaign-shell-1.js', 'modulepreload /assets/campaign-home-1.js', 'modulepreload /assets/record-1.js', 'preload /assets/record-1.css']);
    expect(linksOf(hints('/sign-in'))).toEqual(['modulepreload /assets/auth-1.js', 'modulepreload /assets/record-1.js', 'preload /assets/record-1.css']);
    // Every hinted line is one link element, and only the page's own.
    expect(hints('/campaigns/lost-mine/things/gundren').split('\n').every((line) => /^\s*<link [^<>]+>$/.test(line))).toBe(true);
    expect(hints('/campaigns/lost-mine/arcs/a')).toContain('arc-page-1.js');
    expect(hints('/campaigns/lost-mine/arcs/a')).not.toContain('thing-page');
  });

  it('is nothing for a path that is no page of the app', () => {
    const hints = pageHints(manifest());
    for (const path of ['/campaigns/c/things', '/campaigns/c/things/t/more', '/nowhere', '/api/campaigns']) expect(hints(path), path).toBe('');
  });

  it('finds a page by its module or, for a shared chunk, by its name; a module not in the build stops the start', () => {
    const built = manifest();
    expect(chunkOf(built, 'src/things/thing-page.tsx')).toBe('src/things/thing-page.tsx');
    expect(chunkOf(built, 'src/app/campaign-shell.tsx')).toBe('_campaign-shell-1.js');
    delete built['src/arcs/arc-page.tsx'];
    expect(() => pageHints(built)).toThrow(/src\/arcs\/arc-page\.tsx/);
    expect(() => pageHints({ 'x.js': { file: 'assets/x.js' } })).toThrow(/no entry/);
  });
});
