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
// of a comment is ever left in the tree's text: the reader (vault/convert.ts) makes them secret.
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
    found.push({ start: i, end, from, to });
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

/** The tree of `text`, with its comments as `comment` nodes (see the top of this file). */
function parseWithComments(text) {
  if (!text.includes('%%') && !text.includes('<!--')) return fromMarkdown(text, options);
  const comments = findComments(text, codeRanges(text));
  const mark = comments.length > 0 ? unusedCharacter(text) : undefined;
  if (mark === undefined) return fromMarkdown(text, options);
  let cut = '';
  let at = 0;
  comments.forEach((comment, n) => {
    cut += text.slice(at, comment.start) + mark + n + mark;
    at = comment.end;
  });
  cut += text.slice(at);
  const tree = fromMarkdown(cut, options);
  const placed = new Array(comments.length).fill(false);
  const token = new RegExp(`${mark}(\\d+)${mark}`, 'g');
  const commentNode = (n) => {
    const content = contentOf(text, comments[n]);
    return { type: 'comment', children: content.trim() === '' ? [] : fromMarkdown(content, options).children };
  };
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
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
        if (n < comments.length && !placed[n]) {
          placed[n] = true;
          children.push(commentNode(n));
        }
      }
      if (from < child.value.length) children.push({ type: 'text', value: child.value.slice(from) });
    }
    node.children = children;
    for (const child of children) if (child.type !== 'comment') stack.push(child);
  }
  placed.forEach((done, n) => {
    if (!done) tree.children.push(commentNode(n));
  });
  return tree;
}

parentPort?.on('message', (/** @type {{ id: number; text: string; maxNodes: number }} */ message) => {
  try {
    const tree = parseWithComments(message.text);
    if (!strip(tree, message.maxNodes)) {
      parentPort?.postMessage({ id: message.id, error: `it has more than ${message.maxNodes} elements, more than a thing's text holds` });
      return;
    }
    // As JSON text: the structured clone of a deeply nested tree takes the receiving thread (the
    // server's event loop) seconds to take apart (1,500 nested quotes: over 15 s); JSON.parse does not.
    let json;
    try {
      json = JSON.stringify(tree);
    } catch {
      parentPort?.postMessage({ id: message.id, error: 'it nests too deeply to read' });
      return;
    }
    parentPort?.postMessage({ id: message.id, json });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
