// The one tokenizer of the search index: the same code turns stored text into index terms and a
// query into query terms, so both databases see identical terms and matching never depends on
// what a database thinks a word, a letter or a case is.
//
// A term is folded: lowercased, compatibility-decomposed (NFKD: ligatures, full-width forms), with
// every combining mark removed (é → e, ä → a, ά → α) and a few letters that carry no combining mark
// spelled out (ß → ss, æ → ae, ø → o …). Words are runs of letters, digits and marks; an apostrophe
// inside a word is dropped (O'Brien → obrien, Harper's → harpers). Scripts written without spaces
// (Han, kana, Thai, Lao, Khmer, Myanmar) become overlapping character bigrams, plus the last
// character of each run alone, so every character starts some term and a one-character query still
// finds it by prefix. Pictographs (emoji) are terms of their own.

/** Longest term, in code points; longer words are cut (the same cut on both sides of a match). */
export const MAX_TERM_LENGTH = 64;

export type TokenKind = 'word' | 'cjk' | 'symbol';

export interface Token {
  term: string;
  kind: TokenKind;
  /** UTF-16 offsets of the token in the text it came from (excerpts and highlights use them). */
  start: number;
  end: number;
  /** The lone last character of a bigram run: indexed, but a query of two or more such characters searches by its bigrams. */
  tail?: true;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const MARKS = /\p{M}/gu;
const APOSTROPHES = /['’ʼ]/g;
const SPELLED_OUT: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ς: 'σ',
};
const SPELLED_OUT_PATTERN = new RegExp(`[${Object.keys(SPELLED_OUT).join('')}]`, 'g');

// A word, or one pictograph. Apostrophes join letters (don't, O'Brien) but never start or end a word.
const TOKEN = /[\p{L}\p{N}\p{M}]+(?:['’ʼ][\p{L}\p{N}\p{M}]+)*|\p{Extended_Pictographic}/gu;
const BIGRAM_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\uFF70]/u;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const HAS_LETTER = /\p{L}/u;

/** A string with every lone surrogate replaced by U+FFFD (same length, so offsets stay valid). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The folded form of a piece of text (see the file comment). NFC at the end recomposes Hangul. */
export function fold(text: string): string {
  // Nothing in printable ASCII decomposes or carries a mark: the common case costs one pass.
  if (PRINTABLE_ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(SPELLED_OUT_PATTERN, (ch) => SPELLED_OUT[ch] ?? ch)
    .normalize('NFC');
}

function cut(term: string): string {
  if (term.length <= MAX_TERM_LENGTH) return term;
  const points = Array.from(term);
  return points.length <= MAX_TERM_LENGTH ? term : points.slice(0, MAX_TERM_LENGTH).join('');
}

/** Whether a term may be matched with typos: it has a letter and is a word (not bigrams, not a pictograph). */
export function isFuzzyCandidate(term: string): boolean {
  return HAS_LETTER.test(term) && !BIGRAM_SCRIPT.test(term) && !PICTOGRAPH.test(term);
}

interface FoldedChar {
  char: string;
  start: number;
  end: number;
}

function bigramTokens(text: string, start: number, out: Token[]): void {
  const chars: FoldedChar[] = [];
  let offset = start;
  for (const point of text) {
    const end = offset + point.length;
    for (const char of fold(point)) chars.push({ char, start: offset, end });
    offset = end;
  }
  for (let i = 0; i < chars.length; i += 1) {
    const first = chars[i]!;
    const second = chars[i + 1];
    if (second) out.push({ term: first.char + second.char, kind: 'cjk', start: first.start, end: second.end });
    else if (chars.length === 1) out.push({ term: first.char, kind: 'cjk', start: first.start, end: first.end });
    else out.push({ term: first.char, kind: 'cjk', start: first.start, end: first.end, tail: true });
  }
}

function wordToken(text: string, start: number, out: Token[]): void {
  const term = cut(fold(text).replace(APOSTROPHES, ''));
  if (term !== '') out.push({ term, kind: 'word', start, end: start + text.length });
}

// Splits a word match into runs of bigram-script characters and runs of everything else; a mark
// belongs to the run of the character before it.
function splitRuns(word: string, start: number, out: Token[]): void {
  if (!BIGRAM_SCRIPT.test(word)) {
    wordToken(word, start, out);
    return;
  }
  let runStart = 0;
  let runIsBigram: boolean | undefined;
  let offset = 0;
  for (const point of word) {
    const isMark = /^\p{M}$/u.test(point);
    const isBigram = isMark && runIsBigram !== undefined ? runIsBigram : BIGRAM_SCRIPT.test(point);
    if (runIsBigram !== undefined && isBigram !== runIsBigram) {
      const run = word.slice(runStart, offset);
      if (runIsBigram) bigramTokens(run, start + runStart, out);
      else wordToken(run, start + runStart, out);
      runStart = offset;
    }
    runIsBigram = isBigram;
    offset += point.length;
  }
  const run = word.slice(runStart);
  if (runIsBigram) bigramTokens(run, start + runStart, out);
  else wordToken(run, start + runStart, out);
}

const ASCII_TEXT = /^[\t\n\r\x20-\x7e]*$/;
const ASCII_TOKEN = /[A-Za-z0-9]+(?:'[A-Za-z0-9]+)*/g;

/** Every token of `text`, in order. Offsets refer to `text` itself. */
export function tokenize(text: string): Token[] {
  return ASCII_TEXT.test(text) ? tokenizeAscii(text) : tokenizeUnicode(text);
}

// The same tokens as tokenizeUnicode gives for plain ASCII text (a unit test holds them equal), in
// a fraction of the time: most text a campaign holds is ASCII.
function tokenizeAscii(text: string): Token[] {
  const out: Token[] = [];
  for (const match of text.matchAll(ASCII_TOKEN)) {
    const value = match[0];
    const lower = value.toLowerCase();
    const term = lower.includes("'") ? lower.replaceAll("'", '') : lower;
    out.push({ term: term.length > MAX_TERM_LENGTH ? term.slice(0, MAX_TERM_LENGTH) : term, kind: 'word', start: match.index, end: match.index + value.length });
  }
  return out;
}

/** tokenize for any text. */
export function tokenizeUnicode(text: string): Token[] {
  const source = wellFormed(text);
  const out: Token[] = [];
  for (const match of source.matchAll(TOKEN)) {
    const value = match[0];
    const start = match.index;
    if (PICTOGRAPH.test(value)) out.push({ term: value, kind: 'symbol', start, end: start + value.length });
    else splitRuns(value, start, out);
  }
  return out;
}

/** Longest name key stored and compared, in code points (exact-name matching beyond it compares the cut keys). */
export const MAX_NAME_KEY_LENGTH = 255;

/**
 * The key that decides an exact name match: the folded words of a text, joined by single spaces,
 * punctuation ignored ("Nezznar, the Black Spider" and "nezznar the black spider" share it).
 */
export function nameKey(text: string): string {
  const words: string[] = [];
  for (const match of wellFormed(text).matchAll(TOKEN)) {
    const word = fold(match[0]).replace(APOSTROPHES, '');
    if (word !== '') words.push(word);
  }
  const key = words.join(' ');
  if (key.length <= MAX_NAME_KEY_LENGTH) return key;
  return Array.from(key).slice(0, MAX_NAME_KEY_LENGTH).join('').trimEnd();
}
