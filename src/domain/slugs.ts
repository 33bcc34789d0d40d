import { randomInt } from 'node:crypto';
import slugify from '@sindresorhus/slugify';

export const SLUG_MAX_LENGTH = 100;

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidSlug(value: string): boolean {
  return value.length >= 1 && value.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(value);
}

// Lone surrogates are replaced before the library sees them: its Unicode-aware regular expressions
// and normalisation would otherwise be working on text that is not well-formed.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// Whatever the library hands back, this is what makes a slug: anything outside [a-z0-9] becomes a
// single hyphen, hyphens are trimmed, and the cut at the length limit never leaves a trailing one.
function normaliseSlugCharacters(value: string): string {
  const cleaned = value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned.slice(0, SLUG_MAX_LENGTH).replace(/-+$/, '');
}

export function slugifyName(name: string): string {
  // A well-formed slug is already its own slug; this makes `isValidSlug(s) ⇒ slugifyName(s) === s`
  // hold by construction, whatever the library's tables do.
  if (isValidSlug(name)) return name;
  let transliterated: string;
  try {
    // NFKC first so compatibility forms (ligatures like `ﬁ`, full-width letters, `ǅ`) become
    // the letters the transliteration tables know. `decamelize: false` keeps `McDonald` → `mcdonald`.
    // The library's default word replacements stay (`&` → `and`, `♥` → `love`): a name like
    // `Dungeons & Dragons` reads better as `dungeons-and-dragons`.
    const input = name.replace(LONE_SURROGATE, ' ').normalize('NFKC');
    transliterated = slugify(input, { decamelize: false });
  } catch {
    // Never expected; if the library fails on some input, keep what ASCII the name has.
    transliterated = name;
  }
  return normaliseSlugCharacters(transliterated);
}

// `suffix` is a program-chosen part (a counter, a random part, an id) and must itself be a slug short
// enough to leave room for at least one character of the base; anything else is a bug in the caller.
// `base` is run through `slugifyName` (a no-op on a valid slug); if nothing is left, the suffix alone
// is the result.
export function withSuffix(base: string, suffix: string): string {
  if (!isValidSlug(suffix) || suffix.length > SLUG_MAX_LENGTH - 2) {
    throw new RangeError(`withSuffix: suffix ${JSON.stringify(suffix)} is not a short enough slug`);
  }
  const slugBase = slugifyName(base);
  if (slugBase === '') return suffix;
  const room = SLUG_MAX_LENGTH - 1 - suffix.length;
  // The base starts with an alphanumeric, so the trimmed cut is never empty.
  const cut = slugBase.slice(0, room).replace(/-+$/, '');
  return `${cut}-${suffix}`;
}

// Candidates `base-2`, `base-3`, … differ in their last hyphen-separated part, so they are all
// distinct and the loop ends after at most |taken| + 1 tries.
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  const slugBase = slugifyName(base);
  if (slugBase === '') {
    throw new RangeError(`nextFreeSlug: base ${JSON.stringify(base)} leaves no slug`);
  }
  const takenSet = new Set(taken);
  if (!takenSet.has(slugBase)) return slugBase;
  for (let counter = 2; ; counter += 1) {
    const candidate = withSuffix(slugBase, String(counter));
    if (!takenSet.has(candidate)) return candidate;
  }
}

const SUFFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const RANDOM_SUFFIX_LENGTH = 6;

// 36^6 ≈ 2.2e9 values; `randomInt` draws uniformly from the CSPRNG (no modulo bias).
export function randomSlugSuffix(): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_SUFFIX_LENGTH; i += 1) {
    suffix += SUFFIX_ALPHABET.charAt(randomInt(SUFFIX_ALPHABET.length));
  }
  return suffix;
}
