// The web app's initial JavaScript and CSS, gzipped, stay within 250 KB (issue 12). Sizes of a
// build are deterministic, so this is a test; the figures are printed too.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';

const BUDGET = 250 * 1000;

describe('the web app bundle', () => {
  it('loads at most 250 KB of JavaScript and CSS, gzipped, on the first page', () => {
    const { webRoot } = inject('e2e');
    const html = fs.readFileSync(path.join(webRoot, 'index.html'), 'utf8');
    const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(initial.length).toBeGreaterThanOrEqual(2);
    let total = 0;
    const lines: string[] = [];
    for (const file of initial) {
      const bytes = fs.readFileSync(path.join(webRoot, file));
      const gzipped = gzipSync(bytes, { level: 9 }).length;
      total += gzipped;
      lines.push(`${file}: ${(bytes.length / 1000).toFixed(1)} KB, ${(gzipped / 1000).toFixed(1)} KB gzipped`);
    }
    console.log(`web app bundle, initial load:\n${lines.join('\n')}\ntotal ${(total / 1000).toFixed(1)} KB gzipped (budget ${BUDGET / 1000} KB)`);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });
});
