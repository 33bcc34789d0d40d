// Parses Markdown (CommonMark and GFM, by micromark) into mdast, in a worker thread of its own.
// micromark takes quadratic or worse time on some inputs (deeply nested quotes, lists and emphasis:
// 28 KB can take ten seconds), and a few hundred bytes of working memory per byte of input, so an
// import never parses on the server's event loop: it sends each file here, and markdown.ts ends
// this worker when one takes too long, and bounds its memory (see MarkdownParser).
// The tree goes back as JSON text without positions (nothing reads them; they are half its size),
// and only when it has at most `maxNodes` nodes: more could not fit a thing's text anyway.
// Plain JavaScript with package imports only, so it runs as it is from src/ (tests, tsx) and from
// dist/ (the build copies it next to main.js).
//
// Comments (Obsidian's `%% … %%` and HTML's `<!-- … -->`, outside code) are GM secrets in the
// vaults people bring (CONTRACT "Import from elsewhere"). They can start and end anywhere, across
// paragraphs, so micromark alone cannot keep them: each comment is cut out of the text before
// parsing and left as a token of characters the note does not use; its content is parsed on its own;
// the tree then holds a `comment` node (its children the content's blocks) where the token was. A
// comment cut from a place that holds no text (a link's address) goes to the end of the note. Nothing
// of a comment is ever left in the tree's text: the reader (vault/convert.ts) makes them secret. A
// comment still open at the end of the text is named in the root's `data.unclosedComment`, so the
// reader carries it into the next piece of a long note (vault/read.ts).
import { parentPort } from 'node:worker_threads';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

const options = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** Removes `position` from every node (without recursion: a tree may be deep); false past `max` nodes. */
function strip(tree, max) {
  const stack = [tree];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    count += 1;
    if (count > max) return false;
    delete node.position;
    if (Array.isArray(node.children)) for (const child of node.children) stack.push(child);
  }
  return true;
}

/** Where code is in the text, as sorted [start, end) offsets: inside it, `%%` and `<!--` are literal. */
function codeRanges(text) {
  const ranges = [];
  const stack = [fromMarkdown(text, options)];
  while (stack.length > 0) {
    const node = stack.pop();
    if ((node.type === 'code' || node.type === 'inlineCode') && node.position) ranges.push([node.position.start.offset, node.position.end.offset]);
    else if (Array.isArray(node.children)) for (const child of node.children) stack.push(child);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

/**
 * The comments of `text` outside `code`, in order, as {start, end, from, to}: the whole comment and
 * its content. An unclosed comment runs to the end of the note (Obsidian hides the rest). A
 * backslash escapes the character after it. Linear: one pass, and each search for a comment's end
 * starts where the last one stopped.
 */
function findComments(text, code) {
  const found = [];
  let c = 0;
  const skipCode = (at) => {
    while (c < code.length && code[c][1] <= at) c += 1;
    return c < code.length && code[c][0] <= at ? code[c][1] : at;
  };
  let i = 0;
  while (i < text.length) {
    const past = skipCode(i);
    if (past !== i) {
      i = past;
      continue;
    }
    const ch = text.charCodeAt(i);
    if (ch === 0x5c) {
      i += 2;
      continue;
    }
    const close = ch === 0x25 && text.charCodeAt(i + 1) === 0x25 ? '%%' : ch === 0x3c && text.startsWith('<!--', i) ? '-->' : undefined;
    if (close === undefined) {
      i += 1;
      continue;
    }
    const from = i + (close === '%%' ? 2 : 4);
    let search = from;
    let to = text.length;
    let end = text.length;
    for (;;) {
      const k = text.indexOf(close, search);
      if (k === -1) break;
      const after = skipCode(k);
      if (after !== k) {
        search = after;
        continue;
      }
      to = k;
      end = k + close.length;
      break;
    }
    found.push({ start: i, end, from, to, close });
    i = end;
  }
  return found;
}

/** A character the text does not hold (from Unicode's private use area), for the comments' tokens. */
function unusedCharacter(text) {
  const used = new Set();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xe000 && code <= 0xf8ff) used.add(code);
  }
  for (let code = 0xe000; code <= 0xf8ff; code++) if (!used.has(code)) return String.fromCharCode(code);
  return undefined;
}

/** A comment's content; inside a quote, its lines lose the quote's `>` markers the first line had. */
function contentOf(text, comment) {
  const content = text.slice(comment.from, comment.to);
  if (!content.includes('\n')) return content;
  const lineStart = text.lastIndexOf('\n', comment.start - 1) + 1;
  const prefix = /^(?:[ \t]*>)+[ \t]?/.exec(text.slice(lineStart, comment.start));
  if (!prefix) return content;
  const marker = new RegExp(`^(?:[ \\t]*>){1,${prefix[0].split('>').length - 1}}[ \\t]?`);
  return content
    .split('\n')
    .map((line, n) => (n === 0 ? line : line.replace(marker, '')))
    .join('\n');
}

/**
 * Where code probably is, found without parsing: fenced blocks (by their fence lines) and code spans
 * (a run of backticks to the next run as long, within its paragraph and 64 KiB). Parsing twice
 * would double the time a note with comments takes; the tree parsed after the cut tells whether
 * this guess was right (see cutAndParse), and when it was not, codeRanges decides.
 */
function quickCodeRanges(text) {
  const ranges = [];
  const fence = /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})/;
  let i = 0;
  while (i < text.length) {
    const lineEnd = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    const open = fence.exec(text.slice(i, Math.min(lineEnd, i + 200)));
    if (open) {
      const run = open[1];
      let at = lineEnd + 1;
      while (at < text.length) {
        const end = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
        const line = text.slice(at, Math.min(end, at + 200)).replace(/^[ \t>]*/, '');
        at = end + 1;
        if (line.startsWith(run) && line.slice(run.length).replace(new RegExp(`^\\${run[0]}*`), '').trim() === '') break;
      }
      ranges.push([i, Math.min(at, text.length)]);
      i = at;
      continue;
    }
    for (let k = text.indexOf('`', i); k !== -1 && k < lineEnd; k = text.indexOf('`', k)) {
      let length = 0;
      while (text[k + length] === '`') length++;
      let close = -1;
      let scanned = k + length;
      for (let m = text.indexOf('`', scanned); m !== -1 && m < k + 65536; m = text.indexOf('`', m)) {
        let run = 0;
        while (text[m + run] === '`') run++;
        if (/\n[ \t]*\n/.test(text.slice(scanned, m))) break;
        scanned = m;
        if (run === length) {
          close = m + run;
          break;
        }
        m += run;
      }
      if (close === -1) {
        k += length;
        continue;
      }
      ranges.push([k, close]);
      k = close;
    }
    const last = ranges.at(-1);
    i = last && last[1] > lineEnd ? text.indexOf('\n', last[1]) + 1 || text.length : lineEnd + 1;
  }
  return ranges;
}

class TooLarge extends Error {
  constructor(maxNodes) {
    super(`it has more than ${maxNodes} elements, more than a thing's text holds`);
  }
}

/** The tree of `text`, with its comments as `comment` nodes (see the top of this file). */
function parseWithComments(text, maxNodes) {
  if (!text.includes('%%') && !text.includes('<!--')) return fromMarkdown(text, options);
  const mark = unusedCharacter(text);
  // Never its comments shown: a note that leaves no character for the tokens is not read.
  if (mark === undefined) throw new Error('it holds comments and every private-use character, so its comments cannot be kept apart');
  return cutAndParse(text, mark, quickCodeRanges(text), true, maxNodes) ?? cutAndParse(text, mark, codeRanges(text), false, maxNodes);
}

/**
 * The text parsed with its comments (outside `code`) cut out and put back as `comment` nodes. When
 * `check`, undefined if the parsed tree shows the code was guessed wrong: a comment's delimiter left
 * in text or HTML, or a token inside code.
 */
function cutAndParse(text, mark, code, check, maxNodes) {
  const shown = (value) => typeof value === 'string' && (value.includes('%%') || value.includes('<!--'));
  const comments = findComments(text, code);
  // Each comment is at least a node and its paragraph: refused before parsing what could not be kept.
  if (comments.length * 2 > maxNodes) throw new TooLarge(maxNodes);
  let cut = '';
  let at = 0;
  comments.forEach((comment, n) => {
    cut += text.slice(at, comment.start) + mark + n + mark;
    at = comment.end;
  });
  cut += text.slice(at);
  const tree = fromMarkdown(cut, options);
  const placed = [];
  const token = new RegExp(`${mark}(\\d+)${mark}`, 'g');
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (check && (node.type === 'code' || node.type === 'inlineCode' ? node.value.includes(mark) : shown(node.value) || shown(node.alt))) return undefined;
    for (const key of ['url', 'alt', 'title', 'value']) {
      if (node.type !== 'text' && typeof node[key] === 'string' && node[key].includes(mark)) node[key] = node[key].replace(token, '');
    }
    if (!Array.isArray(node.children)) continue;
    const children = [];
    for (const child of node.children) {
      if (child.type !== 'text' || !child.value.includes(mark)) {
        children.push(child);
        continue;
      }
      let from = 0;
      for (const match of child.value.matchAll(token)) {
        const n = Number(match[1]);
        if (match.index > from) children.push({ type: 'text', value: child.value.slice(from, match.index) });
        from = match.index + match[0].length;
        if (n < comments.length && placed[n] === undefined) {
          placed[n] = { type: 'comment', children: [] };
          children.push(placed[n]);
        }
      }
      if (from < child.value.length) children.push({ type: 'text', value: child.value.slice(from) });
    }
    node.children = children;
    for (const child of children) if (child.type !== 'comment') stack.push(child);
  }
  const contents = commentContents(text, comments, mark);
  comments.forEach((_, n) => {
    if (placed[n] === undefined) tree.children.push((placed[n] = { type: 'comment', children: [] }));
    placed[n].children = contents[n];
  });
  // A comment still open at the end: the reader carries it into the next piece of a long note.
  const last = comments.at(-1);
  if (last !== undefined && last.to === last.end) tree.data = { ...tree.data, unclosedComment: last.close === '%%' ? '%%' : '<!--' };
  return tree;
}

/**
 * Each comment's content parsed as Markdown: all in one parse, apart by a paragraph of two tokens
 * (a parse per comment costs a millisecond each); one by one if a content swallows its separator
 * (an unclosed fence).
 */
function commentContents(text, comments, mark) {
  const sources = comments.map((comment) => contentOf(text, comment));
  const separator = mark + mark;
  const all = fromMarkdown(sources.join(`\n\n${separator}\n\n`), options).children;
  const out = [[]];
  for (const node of all) {
    if (node.type === 'paragraph' && node.children.length === 1 && node.children[0].type === 'text' && node.children[0].value === separator) out.push([]);
    else out.at(-1).push(node);
  }
  if (out.length === sources.length) return out;
  return sources.map((source) => (source.trim() === '' ? [] : fromMarkdown(source, options).children));
}

/** JSON of a tree of plain objects, arrays, strings, numbers, booleans and null, without recursion. */
function deepJson(tree) {
  const out = [];
  const literal = (text) => ({ literal: text });
  const stack = [{ value: tree }];
  while (stack.length > 0) {
    const item = stack.pop();
    if ('literal' in item) {
      out.push(item.literal);
      continue;
    }
    const { value } = item;
    if (Array.isArray(value)) {
      out.push('[');
      stack.push(literal(']'));
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i] === undefined ? null : value[i] });
        if (i > 0) stack.push(literal(','));
      }
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value).filter((key) => value[key] !== undefined);
      out.push('{');
      stack.push(literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: value[keys[i]] });
        stack.push(literal(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
    } else out.push(JSON.stringify(value) ?? 'null');
  }
  return out.join('');
}

parentPort?.on('message', (/** @type {{ id: number; text: string; maxNodes: number }} */ message) => {
  try {
    const tree = parseWithComments(message.text, message.maxNodes);
    if (!strip(tree, message.maxNodes)) {
      parentPort?.postMessage({ id: message.id, error: `it has more than ${message.maxNodes} elements, more than a thing's text holds` });
      return;
    }
    // As JSON text: the structured clone of a deeply nested tree takes the receiving thread (the
    // server's event loop) seconds to take apart (1,500 nested quotes: over 15 s); JSON.parse does not.
    // A tree too deep for JSON.stringify (thousands of nested quotes) is written without recursion:
    // the reader keeps what it cannot nest as paragraphs of text, its secrets secret.
    let json;
    try {
      json = JSON.stringify(tree);
    } catch {
      json = deepJson(tree);
    }
    parentPort?.postMessage({ id: message.id, json });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
