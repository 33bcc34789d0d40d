// Word forms: a light English stemmer (plurals, possessives, -ed, -ing) and its inverse, the forms
// a stem may have been written in. The index keeps words as written (folded, not stemmed), so
// prefix and typo matching work on real words; a query word is matched to the other forms of the
// same stem by generating those forms and looking them up (see query.ts). Only words of plain
// letters a–z of four letters or more are stemmed: names and other languages are left alone.

const PLAIN = /^[a-z]+$/;
const VOWEL = /[aeiouy]/;
const DOUBLE_CONSONANT = /([b-df-hj-np-rtv-z])\1$/;
const MIN_STEM = 3;

function stripSuffixes(word: string): string {
  if (word.endsWith('ies') && word.length >= 5) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ied') && word.length >= 5) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('es') && word.length >= 5 && /(?:[sxz]|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix)) continue;
    const rest = word.slice(0, -suffix.length);
    // "speed", "string", "bed" keep their ending: what is left must be a word of its own.
    if (rest.length < 4 || !VOWEL.test(rest)) return word;
    return DOUBLE_CONSONANT.test(rest) && !/(?:ll|ss|zz)$/.test(rest) ? rest.slice(0, -1) : rest;
  }
  return word;
}

/** The stem of a folded word, or the word itself when it is not a plain English-looking word. */
export function stem(word: string): string {
  if (word.length < 4 || !PLAIN.test(word)) return word;
  let result = stripSuffixes(word);
  // A silent final e goes, so close / closed / closing meet.
  if (result.length > 4 && result.endsWith('e') && !result.endsWith('ee')) result = result.slice(0, -1);
  return result.length >= MIN_STEM ? result : word;
}

/** Whether `stem` treats this word (it is a candidate for word-form matching). */
export function isStemmable(word: string): boolean {
  return word.length >= 4 && PLAIN.test(word);
}

/**
 * Every spelling that may stem to `base`: the word forms to look up for a query word. Only the
 * forms that really stem to `base` are returned.
 */
export function wordForms(base: string): string[] {
  const roots = new Set([base, `${base}e`]);
  const last = base.at(-1);
  if (last !== undefined) roots.add(base + last);
  const forms = new Set<string>();
  for (const root of roots) {
    for (const suffix of ['', 's', 'es', 'ed', 'd', 'ing']) forms.add(root + suffix);
  }
  if (base.endsWith('y')) {
    forms.add(`${base.slice(0, -1)}ies`);
    forms.add(`${base.slice(0, -1)}ied`);
  }
  return [...forms].filter((form) => stem(form) === base).sort();
}
