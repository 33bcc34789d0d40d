// The link dialog takes only addresses the server renders as links (src/render/urls.ts), so a link
// never silently turns into plain text, and the editor never carries an href a browser would read
// as another site (`/\evil.example/x` is `https://evil.example/x` to a browser).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeLinkUrl } from '../../../src/render/urls.js';
import { safeUrl } from './link-dialog';

describe('the link dialog’s address', () => {
  it.each(['/\\evil.example/x', 'https://exa mple.com', '/a b', 'example.com/a b', '//evil.example/x', 'javascript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'ftp://example.com', 'example'])(
    'refuses %j, which the server would not render as a link',
    (typed) => {
      expect(() => safeUrl(typed)).toThrow();
    },
  );

  it('says what to write for another site’s address without its scheme, and for spaces', () => {
    expect(() => safeUrl('//maps.example/x')).toThrow('write https: in front of it');
    expect(() => safeUrl('/a b')).toThrow('write a space as %20');
    expect(() => safeUrl('example')).toThrow('Use an address starting with https://');
  });

  it.each([
    ['https://example.com/a%20b', 'https://example.com/a%20b'],
    ['http://example.com', 'http://example.com/'],
    ['mailto:gm@example.com', 'mailto:gm@example.com'],
    ['/campaigns/phandelver/things/sildar', '/campaigns/phandelver/things/sildar'],
    ['example.com/a', 'https://example.com/a'],
    ['  dndbeyond.com/spells?x=1#top ', 'https://dndbeyond.com/spells?x=1#top'],
  ])('takes %j as %j', (typed, stored) => {
    expect(safeUrl(typed)).toBe(stored);
  });

  it('gives only addresses the server keeps as they are, whatever is typed', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webUrl().map((u) => u.replace(/^https?:\/\//, '')), fc.string().map((s) => `/${s}`)), (typed) => {
        let url: string;
        try {
          url = safeUrl(typed);
        } catch {
          return;
        }
        expect(safeLinkUrl(url)).toBe(url);
      }),
    );
  });
});
