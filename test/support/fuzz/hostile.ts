import fc from 'fast-check';

// Values no well-behaved client sends, for every place a request carries text: JSON string values,
// path segments, query strings, headers. Each list is small and pointed; fast-check mixes them
// with random data.

/** Text that has broken parsers, databases and log pipelines before. */
export const ODD_TEXT = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(64),
  '\u202e\u202d', // bidi overrides
  '\u200b\u200c\u200d\ufeff', // zero-width characters and a byte-order mark
  'e\u0301\u0301\u0301\u0301\u0301\u0301\u0301', // stacked combining marks
  '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67\u200d\ud83d\udc66', // a family emoji (one grapheme, seven code points)
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\ufffd\uffff\ufffe',
  '\u2028\u2029',
  '𝕷𝖔𝖗𝖊', // outside the BMP
  'ǅǈǋ ß ﬁ İ ı', // case-mapping oddities
  '日本語のキャラクター',
  'Ελληνικά Кириллица עברית العربية',
  "'; DROP TABLE things; --",
  '" OR 1=1 --',
  '%00%ff%2e%2e%2f',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}<%= 7*7 %>',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'NaN',
  'Infinity',
  '-0',
  'null',
  'true',
  '1e309',
  '0x10',
  '٣', // Arabic-Indic digit three
  '１２３', // full-width digits
];

export const BIG_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  2_147_483_647,
  2_147_483_648,
  -2_147_483_649,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

/** A string made for JSON bodies: usually ordinary, sometimes odd, sometimes very long. */
export function hostileString(maxLength = 300): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_TEXT) },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: Math.max(256, maxLength) }).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ODD_TEXT), fc.integer({ min: 2, max: 50 })).map(([s, n]) => s.repeat(n)) },
  );
}

/** Nested arrays or objects `depth` levels deep, as JSON text (JSON.stringify of such a value would overflow the stack). */
export function deepJsonText(depth: number, kind: 'array' | 'object', core = '1'): string {
  if (kind === 'array') return '['.repeat(depth) + core + ']'.repeat(depth);
  return '{"a":'.repeat(depth) + core + '}'.repeat(depth);
}

/** Any JSON value, including awkward ones, for places where a schema says nothing. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: hostileString() },
  { weight: 1, arbitrary: fc.constantFrom(...BIG_NUMBERS) },
  // A fresh copy each time: the mutations of the fuzzer write into the values they insert, and one
  // shared `{}` inserted twice and then given a key pointing at itself made every later body circular.
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [[]], [{}]).map((value) => structuredClone(value)) },
);

/** encodeURIComponent that takes any string: a lone surrogate becomes U+FFFD instead of throwing. */
export function encodeAny(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

function percentEncodeBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

/** Path segments a careful client never sends; all are legal characters on an HTTP request line. */
export const HOSTILE_SEGMENTS = [
  '',
  '.',
  '..',
  '%2e%2e',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2F',
  '%5C',
  '%00',
  '%FF',
  '%C0%AF', // overlong slash
  '%ED%A0%80', // an encoded surrogate
  '%E0%A4%A', // truncated escape
  '%',
  'a%zz',
  '%25',
  '%20',
  '~',
  '__proto__',
  'constructor',
  'prototype',
  '0',
  '-1',
  '01',
  '1e3',
  '1.5',
  '0x1',
  '2147483647',
  '2147483648',
  '9007199254740993',
  '9'.repeat(40),
  'NaN',
  'a'.repeat(100),
  'a'.repeat(101),
  'a'.repeat(501), // over the router's maxParamLength
  'UPPER-CASE',
  'slug--double',
  '-leading',
  'trailing-',
  'sp%20ace',
  '%E2%80%AE', // bidi override
  '%F0%9F%98%80', // emoji
];

export function hostileSegment(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeAny) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map(percentEncodeBytes) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9-]{1,30}$/) },
  );
}

/** The tail of a wildcard route (static files): traversal attempts as well as single segments. */
export function hostilePathTail(): fc.Arbitrary<string> {
  return fc.oneof(
    hostileSegment(),
    fc.constantFrom(
      '../../package.json',
      '../../../../../../etc/passwd',
      '..%2F..%2Fpackage.json',
      '%2e%2e/%2e%2e/package.json',
      'static/../../package.json',
      './index.css',
      'index.css%00.html',
      'index.css/',
      '.env',
      '.git/config',
      '//etc/passwd',
    ),
  );
}

const QUERY_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'a[b]', 'a[]', '', '%00', '%FF', 'q', 'limit'];

function queryPiece(names: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: names.length > 0 ? 4 : 0, arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...QUERY_KEYS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeAny) },
  );
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('', '1', '0', '-1', '20', '1000', '1001', 'true', 'false', 'TRUE', '1e2', ' 5', '5 ', '%00', '%FF', '%', 'a%zz') },
    { weight: 2, arbitrary: hostileString(2000).map(encodeAny) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 6 }).map(percentEncodeBytes) },
    { weight: 1, arbitrary: fc.integer().map(String) },
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: key },
    { weight: 1, arbitrary: fc.constantFrom('&', '=', '==', '&&', ';', '?') },
  );
}

/** A raw query string (without the `?`), keyed mostly by the route's own parameter names. */
export function hostileQuery(names: string[]): fc.Arbitrary<string> {
  return fc.array(queryPiece(names), { maxLength: 6 }).map((pieces) => pieces.join('&'));
}
