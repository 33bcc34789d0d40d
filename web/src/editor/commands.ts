// What the toolbar, the keyboard shortcuts and the Markdown shortcuts do to the document.
import { createEditor, Editor, Element as SlateElement, Node, Path, Point, Range, Text, Transforms, type Operation } from 'slate';
import { HistoryEditor } from 'slate-history';
import { CALLOUT_KIND_MAX_LENGTH, containsSecret, newMention, RICH_TEXT_MAX_DEPTH, type MentionTarget } from '../../../src/vocabulary/index.js';
import { HEADINGS, INLINE_TYPES, LIST_TYPES, VOID_TYPES, type BlockType, type Element, type MarkName } from './types';

export function isMarkActive(editor: Editor, mark: MarkName): boolean {
  return Editor.marks(editor)?.[mark] === true;
}

export function toggleMark(editor: Editor, mark: MarkName): void {
  if (isMarkActive(editor, mark)) Editor.removeMark(editor, mark);
  else Editor.addMark(editor, mark, true);
}

/** The innermost block at the selection (a list item, not its list). */
function currentBlock(editor: Editor): [Element, Path] | undefined {
  return Editor.above<Element>(editor, { match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) && !LIST_TYPES.has(n.type) });
}

export function isBlockActive(editor: Editor, type: string): boolean {
  if (!editor.selection) return false;
  const [match] = Editor.nodes(editor, { at: Editor.unhangRange(editor, editor.selection), match: (n) => SlateElement.isElement(n) && n.type === type });
  return match !== undefined;
}

export function toggleBlock(editor: Editor, type: BlockType): void {
  const isList = LIST_TYPES.has(type);
  const active = isBlockActive(editor, type);
  Editor.withoutNormalizing(editor, () => {
    Transforms.unwrapNodes(editor, { match: (n) => SlateElement.isElement(n) && LIST_TYPES.has(n.type), split: true });
    const next: string = active ? 'paragraph' : isList ? 'list-item' : type;
    Transforms.setNodes<Element>(editor, { type: next }, { match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) && !LIST_TYPES.has(n.type) && n.type !== 'table' && n.type !== 'table-row' && n.type !== 'table-cell' });
    if (!active && isList) Transforms.wrapNodes(editor, { type, children: [] }, { match: (n) => SlateElement.isElement(n) && n.type === 'list-item' });
  });
}

/** Whether the selection is in a callout (at any depth). */
export function isCalloutActive(editor: Editor): boolean {
  return isBlockActive(editor, 'callout');
}

/**
 * The toolbar's callout: the selected blocks inside a new callout of `kind` (a note by default),
 * or, inside one, its blocks out of it again (a secret callout's blocks stay secret: withSecrecy).
 */
export function toggleCallout(editor: Editor, kind = 'note'): void {
  if (!editor.selection) return;
  if (isCalloutActive(editor)) {
    Transforms.unwrapNodes(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'callout', split: true });
    return;
  }
  Editor.withoutNormalizing(editor, () => {
    // The outermost blocks of the selection: a list or a table whole, never one item, row or cell of it.
    const blocks = (n: Node) => SlateElement.isElement(n) && Editor.isBlock(editor, n) && n.type !== 'list-item' && n.type !== 'table-row' && n.type !== 'table-cell';
    Transforms.wrapNodes<Element>(editor, { type: 'callout', kind, children: [] }, { match: blocks, mode: 'highest' });
  });
}

/** Whether the caret is in a task (a list item with `checked`). */
export function isTaskListActive(editor: Editor): boolean {
  if (!editor.selection) return false;
  const [match] = Editor.nodes<Element>(editor, { at: Editor.unhangRange(editor, editor.selection), match: (n) => SlateElement.isElement(n) && n.type === 'list-item' && typeof n.checked === 'boolean' });
  return match !== undefined;
}

/** The toolbar's task list: the selected blocks as open tasks of a bulleted list, or back to paragraphs. */
export function toggleTaskList(editor: Editor): void {
  if (!editor.selection) return;
  if (isTaskListActive(editor)) {
    Editor.withoutNormalizing(editor, () => {
      Transforms.unsetNodes(editor, 'checked', { match: (n) => SlateElement.isElement(n) && n.type === 'list-item' });
      toggleBlock(editor, isBlockActive(editor, 'numbered-list') ? 'numbered-list' : 'bulleted-list');
    });
    return;
  }
  Editor.withoutNormalizing(editor, () => {
    if (!isBlockActive(editor, 'bulleted-list') && !isBlockActive(editor, 'numbered-list')) toggleBlock(editor, 'bulleted-list');
    Transforms.setNodes<Element>(editor, { checked: false }, { match: (n) => SlateElement.isElement(n) && n.type === 'list-item' });
  });
}

/** A task done, or open again: the task at the caret (Mod+Enter), or the one at `at` (its checkbox). */
export function toggleTaskChecked(editor: Editor, at?: Path): boolean {
  const entry: [Node, Path] | undefined = at
    ? Node.has(editor, at) ? [Node.get(editor, at), at] : undefined
    : Editor.above<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'list-item' });
  if (!entry) return false;
  const [node, path] = entry;
  if (!SlateElement.isElement(node) || node.type !== 'list-item' || typeof node.checked !== 'boolean') return false;
  Transforms.setNodes<Element>(editor, { checked: !node.checked }, { at: path });
  return true;
}

const isListItem = (node: Node): node is Element => SlateElement.isElement(node) && node.type === 'list-item';
const isListNode = (node: Node): node is Element => SlateElement.isElement(node) && LIST_TYPES.has(node.type);

/** Whether an element holds blocks (an item with a list under its words), not words and inlines. */
function holdsBlocks(editor: Editor, element: Element): boolean {
  return element.children.some((child) => SlateElement.isElement(child) && Editor.isBlock(editor, child));
}

/** The words of the element at `path` (text and inlines) into a paragraph of their own, so that a block can follow them. */
function wordsIntoParagraph(editor: Editor, path: Path): void {
  const count = (Node.get(editor, path) as Element).children.length;
  Transforms.insertNodes(editor, { type: 'paragraph', children: [] }, { at: [...path, 0] });
  for (let moved = 0; moved < count; moved += 1) Transforms.moveNodes(editor, { at: [...path, 1], to: [...path, 0, moved] });
}

/**
 * The path of the list the items go into at the end of the item at `path` (its words made a
 * paragraph first if need be): its last child if that is a list, else a new list of `type`.
 */
function listUnder(editor: Editor, path: Path, type: string): Path {
  if (!holdsBlocks(editor, Node.get(editor, path) as Element)) wordsIntoParagraph(editor, path);
  const item = Node.get(editor, path) as Element;
  const last = item.children[item.children.length - 1]!;
  if (isListNode(last)) return [...path, item.children.length - 1];
  Transforms.insertNodes(editor, { type, children: [] }, { at: [...path, item.children.length] });
  return [...path, item.children.length];
}

/** Moves the `count` items from `list` at index `from` to the end of the list at `into`. */
function moveItemsInto(editor: Editor, list: Path, from: number, count: number, into: Path): void {
  for (let moved = 0; moved < count; moved += 1) {
    const length = (Node.get(editor, into) as Element).children.length;
    Transforms.moveNodes(editor, { at: [...list, from], to: [...into, length] });
  }
}

/** An item left holding one plain paragraph holds its words again (the shape the editor writes). */
function wordsOutOfParagraph(editor: Editor, path: Path): void {
  const item = Node.get(editor, path);
  if (!isListItem(item) || item.children.length !== 1) return;
  const only = item.children[0]!;
  if (SlateElement.isElement(only) && only.type === 'paragraph' && only.isSecret !== true) Transforms.unwrapNodes(editor, { at: [...path, 0] });
}

/** Whether the block at `path` is the words of a list item that holds blocks (its first paragraph). */
function isItemWords(editor: Editor, path: Path): boolean {
  if (path.length < 2 || path[path.length - 1] !== 0) return false;
  const node = Node.get(editor, path);
  return SlateElement.isElement(node) && node.type === 'paragraph' && isListItem(Node.parent(editor, path));
}

/**
 * Tab (Shift+Tab with `backward`) in the text: two spaces in a code block, the next (previous) cell
 * in a table, a list item nested (taken out) in a list. True where the key is the text's, even when
 * nothing could move (an item at the first place or the deepest level: the focus stays, so the
 * words typed next stay in the text); false where it is the browser's (the focus moves on).
 */
export function tabInText(editor: Editor, backward: boolean): boolean {
  if (isBlockActive(editor, 'code-block')) {
    if (!backward) editor.insertText('  ');
    return true;
  }
  if (moveInTable(editor, backward)) return true;
  const inList = isBlockActive(editor, 'list-item');
  return (backward ? outdentListItems(editor) : indentListItems(editor)) || inList;
}

/**
 * The list items Tab and Shift+Tab move: the innermost item at the selection's start and, for a
 * selection that goes on, the items of the same list it reaches.
 */
function selectedItems(editor: Editor): { list: Path; first: number; last: number } | undefined {
  if (!editor.selection) return undefined;
  const range = Editor.unhangRange(editor, editor.selection);
  const item = Editor.above(editor, { at: Range.start(range), match: isListItem });
  if (!item) return undefined;
  const list = Path.parent(item[1]);
  const first = item[1][item[1].length - 1]!;
  const end = Range.end(range).path;
  const last = end.length > list.length && Path.isAncestor(list, end) ? Math.max(first, end[list.length]!) : first;
  return { list, first, last };
}

/**
 * Tab in a list: the selected items go one level deeper, into a list under the item before them
 * (the same kind of list as theirs, or the one it already has), with everything under them. False
 * (nothing done) when there is no item before them, or the text would nest deeper than the server
 * takes (RICH_TEXT_MAX_DEPTH).
 */
export function indentListItems(editor: Editor): boolean {
  const items = selectedItems(editor);
  if (!items || items.first === 0) return false;
  const { list, first, last } = items;
  const listNode = Node.get(editor, list) as Element;
  const previous: Path = [...list, first - 1];
  const previousNode = Node.get(editor, previous) as Element;
  // The items go two levels down (a list, an item); the words of the item before them one, into a paragraph.
  const moved = listNode.children.slice(first, last + 1);
  if (previous.length + 1 + elementDepth(moved) > RICH_TEXT_MAX_DEPTH) return false;
  if (!holdsBlocks(editor, previousNode) && previous.length + 1 + elementDepth(previousNode.children) > RICH_TEXT_MAX_DEPTH) return false;
  Editor.withoutNormalizing(editor, () => {
    const into = listUnder(editor, previous, listNode.type);
    moveItemsInto(editor, list, first, last - first + 1, into);
  });
  return true;
}

/**
 * Shift+Tab in a list inside a list item: the selected items come out one level, right after
 * that item; the items after them in their list stay after them, under the last one. False
 * (nothing done) in a list that is not inside an item.
 */
export function outdentListItems(editor: Editor): boolean {
  const items = selectedItems(editor);
  if (!items || items.list.length < 2) return false;
  const { list, first, last } = items;
  const parentItem = Path.parent(list);
  if (!isListItem(Node.get(editor, parentItem))) return false;
  const listNode = Node.get(editor, list) as Element;
  const following = listNode.children.length - 1 - last;
  const count = last - first + 1;
  // Every item keeps its level or goes up: no depth to check.
  Editor.withoutNormalizing(editor, () => {
    if (following > 0) moveItemsInto(editor, list, last + 1, following, listUnder(editor, [...list, last], listNode.type));
    const after = Path.next(parentItem);
    for (let moved = 0; moved < count; moved += 1) {
      Transforms.moveNodes(editor, { at: [...list, first], to: [...after.slice(0, -1), after[after.length - 1]! + moved] });
    }
    if ((Node.get(editor, list) as Element).children.length === 0) Transforms.removeNodes(editor, { at: list });
    wordsOutOfParagraph(editor, parentItem);
  });
  return true;
}

/** A callout's title (plain text); an empty one is no title. */
export function setCalloutTitle(editor: Editor, path: Path, title: string): void {
  const node = Node.has(editor, path) ? Node.get(editor, path) : undefined;
  if (!SlateElement.isElement(node) || node.type !== 'callout') return;
  if (title === '') Transforms.unsetNodes(editor, 'title', { at: path });
  else Transforms.setNodes<Element>(editor, { title }, { at: path });
}

// Secrecy (CONTRACT "Secrets that hold"): an element with `isSecret`, at any depth, hides itself and
// everything inside it from players. Only the GM's own command (toggleSecret) and undo/redo may take
// `isSecret` away; every other operation keeps secret words secret (see withSecrecy).
const SECRECY_CHANGE_ALLOWED = new WeakSet<Editor>();

/**
 * Runs `change` as an explicit decision: it may remove `isSecret` (the GM's toggle, undo/redo, and
 * replacing the document with the server's own version of it).
 */
export function allowingSecrecyChange(editor: Editor, change: () => void): void {
  if (SECRECY_CHANGE_ALLOWED.has(editor)) {
    change();
    return;
  }
  SECRECY_CHANGE_ALLOWED.add(editor);
  try {
    change();
  } finally {
    SECRECY_CHANGE_ALLOWED.delete(editor);
  }
}

/** Whether the node at `path` is secret or sits inside a secret element. */
export function isInsideSecret(editor: Editor, path: Path): boolean {
  if (!Node.has(editor, path)) return false;
  for (const [node] of Node.levels(editor, path)) if (SlateElement.isElement(node) && node.isSecret === true) return true;
  return false;
}

/** GM-only: whether the selection is inside a secret element (at any depth). */
export function isSecretActive(editor: Editor): boolean {
  if (!editor.selection) return false;
  return isInsideSecret(editor, editor.selection.anchor.path);
}

/**
 * The GM's toggle: marks the selection's top-level blocks secret, or, when the selection is all in
 * items of one list (at any depth), those items with what is under them; or un-hides every secret
 * element around and in it.
 */
export function toggleSecret(editor: Editor): void {
  const { selection } = editor;
  if (!selection) return;
  if (!isSecretActive(editor)) {
    const items = selectedItems(editor);
    const end = Range.end(Editor.unhangRange(editor, selection));
    if (items && Path.isAncestor(items.list, end.path)) {
      for (let i = items.first; i <= items.last; i++) Transforms.setNodes<Element>(editor, { isSecret: true }, { at: [...items.list, i] });
      return;
    }
    const [start, last] = Range.edges(selection);
    for (let i = start.path[0]!; i <= last.path[0]!; i++) Transforms.setNodes<Element>(editor, { isSecret: true }, { at: [i] });
    return;
  }
  allowingSecrecyChange(editor, () => {
    Transforms.unsetNodes(editor, 'isSecret', { at: selection, mode: 'all', match: (n) => SlateElement.isElement(n) && n.isSecret === true });
  });
}

/** Makes what is at `path` secret again after an operation took it out of a secret element. */
function keepSecret(editor: Editor, path: Path): void {
  if (!Node.has(editor, path) || isInsideSecret(editor, path)) return;
  const node = Node.get(editor, path);
  // A block carries the flag itself; text or an inline makes its block secret.
  const target = SlateElement.isElement(node) && !Editor.isInline(editor, node) ? path : Editor.above(editor, { at: path, match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) })?.[1];
  if (target) Transforms.setNodes<Element>(editor, { isSecret: true }, { at: target });
}

function secretAllTheWayDown(node: Node, inherited: boolean): Node {
  if (!SlateElement.isElement(node)) return node;
  const secret = inherited || node.isSecret === true;
  const children = node.children.map((child) => secretAllTheWayDown(child, secret)) as Element['children'];
  return secret && !INLINE_TYPES.has(node.type) ? { ...node, isSecret: true, children } : { ...node, children };
}

/**
 * Slate plugin: no operation but the GM's toggle (and undo/redo of what was done) takes secrecy
 * off a word. Structural, at the level of operations, so every command is covered, the ones to
 * come included:
 *  - `set_node` keeps `isSecret` (a command changing a block's type keeps its secrecy);
 *  - `split_node` gives both halves the secrecy of the node split (Enter);
 *  - `merge_node` of a secret node into a visible one makes the result secret (Backspace,
 *    Delete, deleting a selection across blocks);
 *  - `move_node` out of a secret element makes the moved node secret (lifting an item out of a
 *    secret list, toggling a list off);
 *  - a pasted fragment holding a secret makes the block it lands in secret.
 */
export function withSecrecy(editor: Editor): Editor {
  const { apply, insertFragment, undo, redo } = editor;

  editor.apply = (op: Operation) => {
    if (SECRECY_CHANGE_ALLOWED.has(editor)) {
      apply(op);
      return;
    }
    switch (op.type) {
      case 'set_node':
        if ((op.properties as Partial<Element>).isSecret === true && (op.newProperties as Partial<Element>).isSecret !== true) {
          apply({ ...op, newProperties: { ...op.newProperties, isSecret: true } });
          return;
        }
        break;
      case 'split_node': {
        const node = Node.get(editor, op.path);
        if (SlateElement.isElement(node) && node.isSecret === true && (op.properties as Partial<Element>).isSecret !== true) {
          apply({ ...op, properties: { ...op.properties, isSecret: true } });
          return;
        }
        break;
      }
      case 'merge_node': {
        // Siblings share their ancestors: only the merged node's own flag can be lost.
        const node = Node.get(editor, op.path);
        const secret = SlateElement.isElement(node) && node.isSecret === true;
        apply(op);
        if (secret) keepSecret(editor, Path.previous(op.path));
        return;
      }
      case 'move_node': {
        const secret = isInsideSecret(editor, op.path);
        apply(op);
        const moved = Path.transform(op.path, op);
        if (secret && moved) keepSecret(editor, moved);
        return;
      }
      // Text and nodes come and go where they are: secrecy is the container's.
      case 'insert_node':
      case 'insert_text':
      case 'remove_node':
      case 'remove_text':
      case 'set_selection':
        break;
    }
    apply(op);
  };

  editor.insertFragment = (fragment: Node[], options) => {
    const { selection } = editor;
    if (selection && containsSecret(fragment)) {
      // Pasted secret words stay secret: the block they land in becomes secret (the GM may un-hide it).
      const block = Editor.above(editor, { at: Range.start(selection), match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) });
      if (block && !isInsideSecret(editor, block[1])) Transforms.setNodes<Element>(editor, { isSecret: true }, { at: block[1] });
      // Slate inserts a fragment's inner blocks without their wrappers (the items of a copied
      // list): every block inside a secret one carries the flag itself.
      insertFragment(fragment.map((node) => secretAllTheWayDown(node, false)), options);
      return;
    }
    insertFragment(fragment, options);
  };

  // Undo and redo put back what the GM had: a secrecy they toggled comes and goes with it.
  editor.undo = () => allowingSecrecyChange(editor, undo);
  editor.redo = () => allowingSecrecyChange(editor, redo);
  return editor;
}

export function activeLink(editor: Editor): [Element, Path] | undefined {
  const [entry] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'link' });
  return entry;
}

/** A link on the selection, or at the caret with `text` (the address if none) as its text. */
export function setLink(editor: Editor, url: string, text?: string): void {
  const existing = activeLink(editor);
  if (existing) {
    Transforms.setNodes<Element>(editor, { url }, { at: existing[1] });
    return;
  }
  const link: Element = { type: 'link', url, children: [] };
  if (!editor.selection || Range.isCollapsed(editor.selection)) {
    Transforms.insertNodes(editor, { ...link, children: [{ text: text || url }] });
    // Out of the link: what is typed next is the text after it, not more of it.
    Transforms.move(editor, { unit: 'offset' });
  } else {
    Transforms.wrapNodes(editor, link, { split: true });
    Transforms.collapse(editor, { edge: 'end' });
  }
}

export function removeLink(editor: Editor): void {
  Transforms.unwrapNodes(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'link' });
}

export function insertImage(editor: Editor, image: { url: string; alt?: string; caption?: string; assetId?: number }): void {
  const node: Element = { type: 'image', url: image.url, children: [{ text: '' }] };
  if (image.alt) node.alt = image.alt;
  if (image.caption) node.caption = image.caption;
  if (image.assetId !== undefined) node.assetId = image.assetId;
  Transforms.insertNodes(editor, [node, { type: 'paragraph', children: [{ text: '' }] }]);
}

export function insertDivider(editor: Editor): void {
  Transforms.insertNodes(editor, [{ type: 'divider', children: [{ text: '' }] }, { type: 'paragraph', children: [{ text: '' }] }]);
}

export function insertTable(editor: Editor, rows = 2, columns = 2): void {
  const row = () => ({ type: 'table-row', children: Array.from({ length: columns }, () => ({ type: 'table-cell', children: [{ text: '' }] })) });
  Transforms.insertNodes(editor, [{ type: 'table', children: Array.from({ length: rows }, row) }, { type: 'paragraph', children: [{ text: '' }] }]);
  // What is typed next goes into the first cell, where the table appeared (not after it).
  const after = Editor.above(editor, { match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) });
  if (after && Path.hasPrevious(after[1])) {
    const table = Path.previous(after[1]);
    if (Node.has(editor, table) && (Node.get(editor, table) as Element).type === 'table') Transforms.select(editor, Editor.start(editor, table));
  }
}

/**
 * Tab and Shift+Tab inside a table: the next or the previous cell (Tab in the last cell adds a
 * row). Answers false outside a table, where Tab is the browser's.
 */
export function moveInTable(editor: Editor, backward: boolean): boolean {
  const [cell] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'table-cell' });
  const [table] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'table' });
  if (!cell || !table) return false;
  const cells = [...Editor.nodes<Element>(editor, { at: table[1], match: (n) => SlateElement.isElement(n) && n.type === 'table-cell' })].map(([, path]) => path);
  const index = cells.findIndex((path) => Path.equals(path, cell[1]));
  if (backward) {
    if (index > 0) Transforms.select(editor, Editor.end(editor, cells[index - 1]!));
    return true;
  }
  if (index < cells.length - 1) {
    Transforms.select(editor, Editor.start(editor, cells[index + 1]!));
    return true;
  }
  insertTableRow(editor);
  const lastRow = Path.next(Path.parent(cell[1]));
  Transforms.select(editor, Editor.start(editor, [...lastRow, 0]));
  return true;
}

/** Inside a table: a new row below the current one, or a new column right of the current cell. */
export function insertTableRow(editor: Editor): void {
  const [row] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'table-row' });
  if (!row) return;
  const cells = row[0].children.length;
  Transforms.insertNodes(editor, { type: 'table-row', children: Array.from({ length: cells }, () => ({ type: 'table-cell', children: [{ text: '' }] })) }, { at: Path.next(row[1]) });
}

export function insertTableColumn(editor: Editor): void {
  const [cell] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'table-cell' });
  const [table] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'table' });
  if (!cell || !table) return;
  const column = cell[1][cell[1].length - 1]!;
  Editor.withoutNormalizing(editor, () => {
    table[0].children.forEach((_row, r) => {
      Transforms.insertNodes(editor, { type: 'table-cell', children: [{ text: '' }] }, { at: [...table[1], r, column + 1] });
    });
  });
}

/** A mention stores no name (the target's current name is shown, CONTRACT "Mentions store no name"). */
export function insertMention(editor: Editor, target: MentionTarget): void {
  Transforms.insertNodes(editor, newMention(target.targetType, target.targetId));
  Transforms.move(editor);
  Transforms.insertText(editor, ' ');
}

/**
 * The marks set for what is typed next (Ctrl+B, or a typed mark's end: editor.marks) put on the
 * empty text at the caret, before the typing goes into it. Slate would insert the typing as a text
 * of its own beside it, which points held at the caret (the mention picker's) do not follow; and an
 * Enter after a marked word leaves such an empty text carrying that word's marks.
 */
function marksOntoEmptyLeaf(editor: Editor): void {
  const { marks, selection } = editor;
  if (!marks || !selection || !Range.isCollapsed(selection)) return;
  const { path } = selection.anchor;
  const leaf = Node.get(editor, path);
  if (!Text.isText(leaf) || leaf.text !== '') return;
  const gone = Object.keys(leaf).filter((key) => key !== 'text' && !(key in marks));
  if (gone.length > 0) Transforms.unsetNodes(editor, gone, { at: path });
  if (Object.keys(marks).length > 0) Transforms.setNodes(editor, marks, { at: path });
  editor.marks = null;
}

/** Punctuation that closes on the word before it: typed right after a mention, it takes the place of the space after the mention. */
const CLOSING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}', "'", '’', '…']);

/**
 * A mention picked is followed by a space, so the next word is apart; `.`, `,`, `'s`… typed next
 * belong against the name (`@Strahd's castle`, not `@Strahd 's castle`): when such a sign is typed
 * with the caret right after a mention and one space, the space goes first. A space typed there,
 * with nothing after it, is the one already there: 'typed'.
 */
function spaceAfterMentionGives(editor: Editor, text: string): 'typed' | undefined {
  const { selection } = editor;
  if ((text !== ' ' && !CLOSING_PUNCTUATION.has(text)) || !selection || !Range.isCollapsed(selection)) return undefined;
  const { path, offset } = selection.anchor;
  const leaf = Node.get(editor, path);
  if (!Text.isText(leaf) || offset !== 1 || leaf.text[0] !== ' ' || path[path.length - 1] === 0) return undefined;
  if (!isInlineVoid(editor, Node.get(editor, Path.previous(path)))) return undefined;
  // A space typed after it, at the end of the words: that space is there already (no double space).
  if (text === ' ') return leaf.text === ' ' ? 'typed' : undefined;
  Transforms.delete(editor, { at: { path, offset: 0 }, distance: 1 });
  return undefined;
}

/**
 * What is typed after a mention trigger (`@`, `[[`) that starts at `start`, while the caret is in
 * the same block after it: the query and the range from the trigger to the caret (replaced by the
 * mention when one is picked). None when the caret left it, or the text is no longer a name being
 * typed (a line break, two spaces, a space first, over 60 characters).
 */
export function mentionQuery(editor: Editor, start: Point | null, trigger: string): { query: string; range: Range } | undefined {
  const { selection } = editor;
  if (!start || !selection || !Range.isCollapsed(selection)) return undefined;
  const caret = selection.anchor;
  const block = (at: Point) => Editor.above(editor, { at, match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) })?.[1];
  const blockOfStart = Node.has(editor, start.path) ? block(start) : undefined;
  const blockOfCaret = block(caret);
  if (!blockOfStart || !blockOfCaret || !Path.equals(blockOfStart, blockOfCaret) || Point.isBefore(caret, start)) return undefined;
  const range = { anchor: start, focus: caret };
  const text = Editor.string(editor, range);
  if (!text.startsWith(trigger)) return undefined;
  const query = text.slice(trigger.length);
  if (query.length > 60 || /^\s|\n|\s\s/.test(query)) return undefined;
  return { query, range };
}

// Markdown shortcuts typed at the start of a block, then a space (or Enter for ``` and ---).
const SHORTCUTS: Record<string, BlockType> = {
  '#': 'heading-one',
  '##': 'heading-two',
  '###': 'heading-three',
  '####': 'heading-four',
  '#####': 'heading-five',
  '######': 'heading-six',
  '-': 'bulleted-list',
  '*': 'bulleted-list',
  '+': 'bulleted-list',
  '1.': 'numbered-list',
  '>': 'block-quote',
  '```': 'code-block',
};

/** `[!kind]` (Obsidian's callout marker, fold sign allowed) typed at the start of a quote. */
const CALLOUT_MARKER = new RegExp(`^(?:> ?)?\\[!([\\p{L}\\p{N}_-]{1,${CALLOUT_KIND_MAX_LENGTH}})\\][+-]?$`, 'u');
/** `[ ]` or `[x]` typed at the start of a list item (or `- [ ]` at the start of a paragraph). */
const TASK_MARKER = /^(?:[-*+] )?\[([ xX])\]$/;
/**
 * Markdown's inline marks, typed: the words between the signs get the mark when the closing sign
 * is typed (the last sign of each pattern is the one just typed). Words neither start nor end
 * with a space and hold no sign of their own; a single `*` or `_` opens only after a space,
 * punctuation or the start of the text (so `snake_case_names` and `2*3*4` stay as typed), and
 * never as the first of a pair (`**bold*` waits for its last `*`). Tried in this order.
 */
const MARK_SHORTCUTS: readonly { typed: string; pattern: RegExp; mark: MarkName; signs: number }[] = [
  { typed: '*', pattern: /(?:^|[^*])\*\*([^*\s](?:[^*]*[^*\s])?)\*\*$/, mark: 'bold', signs: 2 },
  { typed: '_', pattern: /(?:^|[^_\p{L}\p{N}])__([^_\s](?:[^_]*[^_\s])?)__$/u, mark: 'bold', signs: 2 },
  { typed: '*', pattern: /(?:^|[^*\p{L}\p{N}])\*([^*\s](?:[^*]*[^*\s])?)\*$/u, mark: 'italic', signs: 1 },
  { typed: '_', pattern: /(?:^|[^_\p{L}\p{N}])_([^_\s](?:[^_]*[^_\s])?)_$/u, mark: 'italic', signs: 1 },
  { typed: '~', pattern: /(?:^|[^~])~~([^~\s](?:[^~]*[^~\s])?)~~$/, mark: 'strikethrough', signs: 2 },
  { typed: '=', pattern: /(?:^|[^=])==([^=\s](?:[^=]*[^=\s])?)==$/, mark: 'highlight', signs: 2 },
  { typed: '`', pattern: /(?:^|[^`])`([^`\s](?:[^`]*[^`\s])?)`$/, mark: 'code', signs: 1 },
];
const MARK_SIGNS = new Set(MARK_SHORTCUTS.map((shortcut) => shortcut.typed));

/**
 * `> [!note] ` makes the quote (or paragraph) a callout of that kind holding what follows;
 * `> [!secret] ` makes it a GM-only paragraph instead (as a vault's `[!secret]` imports).
 */
function calloutShortcut(editor: Editor, block: [Element, Path], typed: string): boolean {
  const [node, path] = block;
  if (node.type !== 'block-quote' && node.type !== 'paragraph') return false;
  const match = CALLOUT_MARKER.exec(typed);
  if (!match || (node.type === 'paragraph' && !typed.startsWith('>'))) return false;
  const kind = match[1]!.toLowerCase();
  Transforms.delete(editor, { at: { anchor: Editor.start(editor, path), focus: editor.selection!.anchor } });
  if (kind === 'secret') {
    Transforms.setNodes<Element>(editor, { type: 'paragraph', isSecret: true }, { at: path });
    return true;
  }
  Editor.withoutNormalizing(editor, () => {
    Transforms.setNodes<Element>(editor, { type: 'paragraph' }, { at: path });
    Transforms.wrapNodes<Element>(editor, { type: 'callout', kind, children: [] }, { at: path });
  });
  return true;
}

/** `[ ] ` or `[x] ` at the start of a list item (or `- [ ] ` of a paragraph) makes it a task. */
function taskShortcut(editor: Editor, block: [Element, Path], typed: string): boolean {
  const [node, path] = block;
  const match = TASK_MARKER.exec(typed);
  if (!match || (node.type !== 'list-item' && node.type !== 'paragraph') || (node.type === 'paragraph') !== /^[-*+] /.test(typed)) return false;
  Transforms.delete(editor, { at: { anchor: Editor.start(editor, path), focus: editor.selection!.anchor } });
  if (node.type === 'paragraph') toggleBlock(editor, 'bulleted-list');
  const item = Editor.above<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'list-item' });
  if (item) Transforms.setNodes<Element>(editor, { checked: match[1] !== ' ' }, { at: item[1] });
  return true;
}

/**
 * A closing sign just typed (MARK_SHORTCUTS): the words before it, back to the opening signs in the
 * same run of text, get the mark and the signs go. Not in code (a code mark or a code block), and
 * not across a mention or a change of marks (the words must be one run of text as typed).
 */
function markShortcut(editor: Editor, typed: string): boolean {
  const { selection } = editor;
  if (!selection || !Range.isCollapsed(selection)) return false;
  const { path, offset } = selection.anchor;
  const leaf = Node.get(editor, path);
  if (!Text.isText(leaf) || leaf.code === true || isBlockActive(editor, 'code-block')) return false;
  const before = leaf.text.slice(0, offset);
  for (const shortcut of MARK_SHORTCUTS) {
    if (shortcut.typed !== typed) continue;
    const match = shortcut.pattern.exec(before);
    if (!match) continue;
    const words = match[1]!;
    const start = offset - words.length - 2 * shortcut.signs;
    const apply = () => {
      Transforms.delete(editor, { at: { path, offset: offset - shortcut.signs }, distance: shortcut.signs });
      Transforms.delete(editor, { at: { path, offset: start }, distance: shortcut.signs });
      Transforms.select(editor, { anchor: { path, offset: start }, focus: { path, offset: start + words.length } });
      Editor.addMark(editor, shortcut.mark, true);
      Transforms.collapse(editor, { edge: 'end' });
      // What is typed next does not take the mark.
      Editor.removeMark(editor, shortcut.mark);
    };
    // An undo of its own: Ctrl+Z right after gives back the signs as typed, not less of the typing.
    if (HistoryEditor.isHistoryEditor(editor)) HistoryEditor.withNewBatch(editor, apply);
    else apply();
    return true;
  }
  return false;
}

/** A new empty paragraph after the block at `path`, secret if that block is (Enter in a secret block stays secret). */
function paragraphAfter(editor: Editor, path: Path): void {
  const node = Node.get(editor, path) as Element;
  const paragraph: Element = node.isSecret === true ? { type: 'paragraph', isSecret: true, children: [{ text: '' }] } : { type: 'paragraph', children: [{ text: '' }] };
  Transforms.insertNodes(editor, paragraph, { at: Path.next(path), select: true });
}

/** Whether a node is an inline void: a mention. */
function isInlineVoid(editor: Editor, node: Node): boolean {
  return SlateElement.isElement(node) && Editor.isInline(editor, node) && Editor.isVoid(editor, node);
}

/** The path of the inline void (a mention) a point is inside, if it is inside one. */
function inlineVoidAt(editor: Editor, at: Point): Path | undefined {
  return Editor.above(editor, { at, match: (n) => isInlineVoid(editor, n), mode: 'highest' })?.[1];
}

/**
 * A caret inside an inline void (a mention: a click on it puts it there) moves to the text right
 * after it, where what is typed goes; Slate would otherwise drop the text.
 */
export function caretOutOfInlineVoid(editor: Editor): void {
  const { selection } = editor;
  if (!selection || !Range.isCollapsed(selection)) return;
  const inlineVoid = inlineVoidAt(editor, selection.anchor);
  if (!inlineVoid) return;
  const next = Path.next(inlineVoid);
  const point: Point | undefined = Node.has(editor, next) ? Editor.start(editor, next) : Editor.after(editor, inlineVoid);
  if (point) Transforms.select(editor, point);
}

/**
 * ArrowLeft/ArrowRight next to an inline void (a mention): the caret jumps over it in one step, to
 * the text on its other side (there is always one, if empty: Slate's normalization), never into it.
 * Answers false where the arrow is Slate's own.
 */
export function moveOverInlineVoid(editor: Editor, reverse: boolean): boolean {
  const { selection } = editor;
  if (!selection || !Range.isCollapsed(selection)) return false;
  const caret = selection.anchor;
  let voidPath = inlineVoidAt(editor, caret);
  if (!voidPath) {
    const leaf = Node.get(editor, caret.path);
    if (!Text.isText(leaf)) return false;
    const atEdge = reverse ? caret.offset === 0 : caret.offset === leaf.text.length;
    const index = caret.path[caret.path.length - 1]!;
    if (!atEdge || (reverse && index === 0)) return false;
    const sibling = reverse ? Path.previous(caret.path) : Path.next(caret.path);
    if (!Node.has(editor, sibling) || !isInlineVoid(editor, Node.get(editor, sibling))) return false;
    voidPath = sibling;
  }
  const beyond = reverse ? (Path.hasPrevious(voidPath) ? Path.previous(voidPath) : undefined) : Path.next(voidPath);
  if (!beyond || !Node.has(editor, beyond)) return false;
  Transforms.select(editor, reverse ? Editor.end(editor, beyond) : Editor.start(editor, beyond));
  return true;
}

/**
 * A range whose edge lies inside an inline void (a mention: the browser puts a selection's end in
 * its hidden text when a drag or Shift+click ends on it) widened to take the whole void: its start
 * to the end of the text before the void, its end to the start of the text after it. Slate's own
 * delete keeps the voids and the text between them when an edge is inside one, and can leave an
 * empty list behind that the next split fails on (the editor then throws). Answers undefined when
 * no edge is inside a void.
 */
export function rangeOutOfInlineVoids(editor: Editor, range: Range): Range | undefined {
  const [start, end] = Range.edges(range);
  const startVoid = inlineVoidAt(editor, start);
  const endVoid = inlineVoidAt(editor, end);
  if (!startVoid && !endVoid) return undefined;
  const textBeside = (path: Path, after: boolean): Point | undefined => {
    const beside = after ? Path.next(path) : Path.hasPrevious(path) ? Path.previous(path) : undefined;
    if (!beside || !Node.has(editor, beside) || !Text.isText(Node.get(editor, beside))) return undefined;
    return after ? Editor.start(editor, beside) : Editor.end(editor, beside);
  };
  const from = startVoid ? textBeside(startVoid, false) : start;
  const to = endVoid ? textBeside(endVoid, true) : end;
  if (!from || !to) return undefined;
  return Range.isBackward(range) ? { anchor: to, focus: from } : { anchor: from, focus: to };
}

/**
 * What makes a list hold list items only, and a list item sit in a list, or undefined when `node`
 * is right: an item outside a list becomes a bulleted list of that item; in a list, an empty text
 * left alone takes the list away (a paragraph when it is all there is), another list gives its
 * items to this one where it stood (no deeper nesting), and text, inlines or another block go
 * into an item of their own (a run of text and inlines into one item together).
 */
function listNormalization(editor: Editor, node: Element, path: Path): (() => void) | undefined {
  const parent = path.length === 1 ? editor : (Node.parent(editor, path) as Element);
  if (node.type === 'list-item' && (path.length === 1 || !LIST_TYPES.has((parent as Element).type))) {
    return () => {
      Transforms.insertNodes(editor, { type: 'bulleted-list', children: [] }, { at: path });
      Transforms.moveNodes(editor, { at: Path.next(path), to: [...path, 0] });
    };
  }
  // An item with no words of its own before a list (a merge, a paste, a toggle left it so): the
  // items of that list take its place, one level up, before whatever else it holds.
  if (node.type === 'list-item' && node.children.length > 0 && isListNode(node.children[0]!)) {
    const count = node.children[0].children.length;
    return () => {
      const parentPath = Path.parent(path);
      const index = path[path.length - 1]!;
      for (let moved = 0; moved < count; moved += 1) Transforms.moveNodes(editor, { at: [...parentPath, index + moved, 0, 0], to: [...parentPath, index + moved] });
      const item: Path = [...parentPath, index + count];
      Transforms.removeNodes(editor, { at: [...item, 0] });
      if ((Node.get(editor, item) as Element).children.length === 0) Transforms.removeNodes(editor, { at: item });
    };
  }
  if (!LIST_TYPES.has(node.type)) return undefined;
  const index = node.children.findIndex((child) => !SlateElement.isElement(child) || child.type !== 'list-item');
  if (index < 0) return undefined;
  if (node.children.every((child) => Text.isText(child) && child.text === '')) {
    return parent.children.length > 1 ? () => Transforms.removeNodes(editor, { at: path }) : () => Transforms.setNodes<Element>(editor, { type: 'paragraph' }, { at: path });
  }
  const child = node.children[index]!;
  // An empty text beside items (where Slate's own rule would drop it) goes, making no empty item.
  if (Text.isText(child) && child.text === '') return () => Transforms.removeNodes(editor, { at: [...path, index] });
  if (SlateElement.isElement(child) && LIST_TYPES.has(child.type)) {
    return () => {
      for (let item = child.children.length - 1; item >= 0; item -= 1) Transforms.moveNodes(editor, { at: [...path, index, item], to: [...path, index + 1] });
      Transforms.removeNodes(editor, { at: [...path, index] });
    };
  }
  const isPhrasing = (n: Node) => Text.isText(n) || (SlateElement.isElement(n) && Editor.isInline(editor, n));
  let last = index;
  if (isPhrasing(child)) while (last + 1 < node.children.length && isPhrasing(node.children[last + 1]!)) last += 1;
  return () => {
    Transforms.insertNodes(editor, { type: 'list-item', children: [] }, { at: [...path, index] });
    for (let moved = 0; moved <= last - index; moved += 1) Transforms.moveNodes(editor, { at: [...path, index + 1], to: [...path, index, moved] });
  };
}

/** Element levels of nodes (a top-level block is 1, an inline element inside it 2; text adds none). */
function elementDepth(nodes: readonly Node[]): number {
  let deepest = 0;
  for (const node of nodes) if (SlateElement.isElement(node)) deepest = Math.max(deepest, 1 + elementDepth(node.children));
  return deepest;
}

/** Editors a paste is tried on first (fragmentWithinDepth): the check does not run again inside them. */
const PASTE_TRIALS = new WeakSet<Editor>();

/** Element levels the document would have after pasting `fragment` at the selection, tried on a copy. */
function depthAfterPaste(editor: Editor, fragment: Node[]): number {
  const trial = withLoreforge(createEditor());
  PASTE_TRIALS.add(trial);
  trial.children = structuredClone(editor.children);
  trial.selection = structuredClone(editor.selection);
  trial.insertFragment(structuredClone(fragment));
  return elementDepth(trial.children);
}

/**
 * A fragment's text blocks as paragraphs (void blocks, images and dividers, as they are), a secret
 * block's words in secret paragraphs; with `inlines` false, links and mentions give way to their
 * text (a mention has none) and only marked text is left.
 */
function fragmentAsParagraphs(editor: Editor, fragment: readonly Node[], inlines: boolean): Node[] {
  const flat: Node[] = [];
  const leaves = (nodes: readonly Node[]): Node[] => nodes.flatMap((node) => (Text.isText(node) ? [node] : SlateElement.isElement(node) && !Editor.isVoid(editor, node) ? leaves(node.children) : []));
  const walk = (nodes: readonly Node[], secret: boolean) => {
    for (const node of nodes) {
      if (!SlateElement.isElement(node)) continue;
      const isSecret = secret || node.isSecret === true;
      if (Editor.isVoid(editor, node)) {
        flat.push(isSecret ? { ...node, isSecret: true } : node);
      } else if (node.children.every((child) => Text.isText(child) || Editor.isInline(editor, child))) {
        const children = (inlines ? node.children : leaves(node.children)) as Element['children'];
        const text = children.length > 0 ? children : [{ text: '' }];
        flat.push(isSecret ? { type: 'paragraph', isSecret: true, children: text } : { type: 'paragraph', children: text });
      } else walk(node.children, isSecret);
    }
  };
  walk(fragment, false);
  return flat;
}

/**
 * A fragment to paste at the selection, changed only when pasting it as it is would nest the text
 * deeper than the server takes (RICH_TEXT_MAX_DEPTH; each paste of a callout or a list into
 * itself nests it once more, and a document past the limit could not be saved). The paste is tried
 * on a copy of the document: if it nests too deep, the fragment's text blocks go in as paragraphs
 * (every word kept, secret ones secret); if that is still too deep (the caret's block at the last
 * levels), as paragraphs of their text alone.
 */
export function fragmentWithinDepth(editor: Editor, fragment: Node[]): Node[] {
  if (PASTE_TRIALS.has(editor) || !editor.selection) return fragment;
  // Slate puts a fragment's blocks beside the block at the caret at the deepest (and a block put
  // straight into a list into an item): within the limit by that bound, no trial is needed.
  const block = Editor.above(editor, { at: Range.start(editor.selection), match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) });
  if ((block ? block[1].length : 1) + elementDepth(fragment) <= RICH_TEXT_MAX_DEPTH) return fragment;
  if (depthAfterPaste(editor, fragment) <= RICH_TEXT_MAX_DEPTH) return fragment;
  const paragraphs = fragmentAsParagraphs(editor, fragment, true);
  if (depthAfterPaste(editor, paragraphs) <= RICH_TEXT_MAX_DEPTH) return paragraphs;
  return fragmentAsParagraphs(editor, fragment, false);
}

/** Slate plugin: elements that are inline or void, secrecy that holds, and the Markdown shortcuts. */
export function withLoreforge(editor: Editor): Editor {
  withSecrecy(editor);
  const { isInline, isVoid, insertText, insertBreak, deleteBackward, normalizeNode, delete: deleteRange } = editor;
  editor.isInline = (element) => INLINE_TYPES.has(element.type) || isInline(element);
  editor.isVoid = (element) => VOID_TYPES.has(element.type) || isVoid(element);

  // What the server accepts (domain/rich-text.ts): `checked` on list items only (an item turned into
  // a paragraph stops being a task), and every callout with a kind.
  editor.normalizeNode = (entry, options) => {
    const [node, path] = entry;
    if (SlateElement.isElement(node)) {
      if (Object.hasOwn(node, 'checked') && (node.type !== 'list-item' || typeof node.checked !== 'boolean')) {
        Transforms.unsetNodes(editor, 'checked', { at: path });
        return;
      }
      if (node.type === 'callout' && (typeof node.kind !== 'string' || node.kind === '')) {
        Transforms.setNodes<Element>(editor, { kind: 'note' }, { at: path });
        return;
      }
      // Lists hold list items, and list items sit in lists. Slate's delete of a range that ends
      // inside a list's last item can leave the list with nothing, then an empty text; a paste of
      // part of a list can put a list or a paragraph straight into one, or an item outside any.
      const listFix = listNormalization(editor, node, path);
      if (listFix) {
        Editor.withoutNormalizing(editor, listFix);
        return;
      }
    }
    normalizeNode(entry, options);
  };

  // A selection that ends inside a mention, taken whole before what replaces or splits it.
  const selectionOutOfInlineVoids = () => {
    const { selection } = editor;
    const widened = selection && Range.isExpanded(selection) ? rangeOutOfInlineVoids(editor, selection) : undefined;
    if (widened) Transforms.select(editor, widened);
  };
  const { deleteFragment, insertFragment } = editor;
  editor.deleteFragment = (options) => {
    selectionOutOfInlineVoids();
    deleteFragment(options);
  };
  editor.insertFragment = (fragment, options) => {
    selectionOutOfInlineVoids();
    insertFragment(fragmentWithinDepth(editor, fragment), options);
  };

  // Every deletion of a range (a cut, Backspace on a selection, typing or Enter over one, a paste
  // over one) goes through here: an edge inside a mention takes the whole mention.
  editor.delete = (options = {}) => {
    const { at, voids } = options;
    if (!voids && at === undefined) selectionOutOfInlineVoids();
    const widened = !voids && at && Range.isRange(at) && Range.isExpanded(at) ? rangeOutOfInlineVoids(editor, at) : undefined;
    deleteRange(widened ? { ...options, at: widened } : options);
  };

  editor.insertText = (text) => {
    selectionOutOfInlineVoids();
    caretOutOfInlineVoid(editor);
    if (spaceAfterMentionGives(editor, text) === 'typed') return;
    marksOntoEmptyLeaf(editor);
    const { selection } = editor;
    if (MARK_SIGNS.has(text) && selection && Range.isCollapsed(selection)) {
      insertText(text);
      markShortcut(editor, text);
      return;
    }
    if (text.endsWith(' ') && selection && Range.isCollapsed(selection)) {
      // The words of an item with a list under them are its paragraph: the item's shortcuts apply.
      const inner = currentBlock(editor);
      const block: [Element, Path] | undefined = inner && isItemWords(editor, inner[1]) ? [Node.parent(editor, inner[1]) as Element, Path.parent(inner[1])] : inner;
      if (block && (block[0].type === 'block-quote' || block[0].type === 'list-item' || block[0].type === 'paragraph')) {
        const typed = Editor.string(editor, { anchor: Editor.start(editor, block[1]), focus: selection.anchor }) + text.slice(0, -1);
        if (calloutShortcut(editor, block, typed) || taskShortcut(editor, block, typed)) return;
      }
      if (block && block[0].type === 'paragraph') {
        const start = Editor.start(editor, block[1]);
        const before = Editor.string(editor, { anchor: start, focus: selection.anchor }) + text.slice(0, -1);
        const type = SHORTCUTS[before];
        if (type) {
          Transforms.delete(editor, { at: { anchor: start, focus: selection.anchor } });
          if (before === '```') Transforms.setNodes<Element>(editor, { type: 'code-block' });
          else toggleBlock(editor, type);
          return;
        }
        if (before === '---') {
          Transforms.delete(editor, { at: { anchor: start, focus: selection.anchor } });
          Transforms.setNodes<Element>(editor, { type: 'divider' }, { at: block[1] });
          paragraphAfter(editor, block[1]);
          return;
        }
      }
    }
    insertText(text);
  };

  editor.insertBreak = () => {
    // Marks set for what is typed next hold on the new line (a typed mark's end, Ctrl+B off).
    const marks = editor.marks;
    breakAtCaret();
    if (marks && editor.selection && Range.isCollapsed(editor.selection) && Node.string(Node.get(editor, Path.parent(editor.selection.anchor.path))) === '') editor.marks = marks;
  };

  const breakAtCaret = () => {
    selectionOutOfInlineVoids();
    const block = currentBlock(editor);
    if (block && editor.selection && Range.isCollapsed(editor.selection)) {
      const [node, path] = block;
      const text = Node.string(node);
      if (node.type === 'paragraph' && (text === '```' || text === '---') && !isItemWords(editor, path)) {
        Transforms.delete(editor, { at: { anchor: Editor.start(editor, path), focus: Editor.end(editor, path) } });
        if (text === '```') {
          Transforms.setNodes<Element>(editor, { type: 'code-block' }, { at: path });
        } else {
          Transforms.setNodes<Element>(editor, { type: 'divider' }, { at: path });
          paragraphAfter(editor, path);
        }
        return;
      }
      // Enter in a code block is a line break, and on its empty last line leaves it (else a code
      // block at the end of the text traps the caret); Enter on an empty list item or heading ends it.
      if (node.type === 'code-block') {
        const end = Editor.end(editor, path);
        if (text.endsWith('\n') && Range.equals(editor.selection, Editor.range(editor, end))) {
          Transforms.delete(editor, { at: end, distance: 1, unit: 'character', reverse: true });
          paragraphAfter(editor, path);
          return;
        }
        editor.insertText('\n');
        return;
      }
      // Enter on an empty list item or an empty line of a quote ends it: a paragraph. An empty item
      // in a list inside an item comes out one level instead (as Shift+Tab), and so on out.
      if ((node.type === 'list-item' || node.type === 'block-quote') && text === '' && !node.children.some((child) => SlateElement.isElement(child))) {
        if (node.type === 'list-item' && outdentListItems(editor)) return;
        if (node.type === 'list-item') toggleBlock(editor, 'paragraph');
        else Transforms.setNodes<Element>(editor, { type: 'paragraph' }, { at: path });
        return;
      }
      // Enter on an empty last paragraph of a callout or a quote (of paragraphs) leaves it.
      const parent = Path.parent(path);
      const container = path.length > 1 ? (Node.get(editor, parent) as Element) : undefined;
      if (node.type === 'paragraph' && text === '' && (container?.type === 'callout' || container?.type === 'block-quote') && path[path.length - 1] === container.children.length - 1) {
        if (container.children.length === 1) Transforms.unwrapNodes(editor, { at: parent });
        else Transforms.liftNodes(editor, { at: path });
        return;
      }
      // Enter in the words of an item that holds blocks (a list under its words, after a Tab): a new
      // item after it, as in any list, taking the words after the caret and the lists under them.
      if (container !== undefined && isItemWords(editor, path)) {
        Editor.withoutNormalizing(editor, () => {
          Transforms.splitNodes(editor, { match: isListItem, always: true });
          wordsOutOfParagraph(editor, Path.next(parent));
          wordsOutOfParagraph(editor, parent);
          if (container.checked === true) Transforms.setNodes<Element>(editor, { checked: false }, { at: Path.next(parent) });
        });
        return;
      }
      // Enter in a task: the new item is a task still to do (the one above when Enter was pressed at
      // the start of the task, the one below otherwise).
      if (node.type === 'list-item' && node.checked === true) {
        const atStart = Editor.isStart(editor, editor.selection.anchor, path);
        insertBreak();
        Transforms.setNodes<Element>(editor, { checked: false }, { at: atStart ? path : Path.next(path) });
        return;
      }
      if ((HEADINGS as readonly string[]).includes(node.type) && Range.equals(editor.selection, Editor.range(editor, Editor.end(editor, path)))) {
        paragraphAfter(editor, path);
        return;
      }
    }
    insertBreak();
  };

  editor.deleteBackward = (unit) => {
    const block = currentBlock(editor);
    if (block && editor.selection && Range.isCollapsed(editor.selection)) {
      const [node, path] = block;
      // At the start of an item's words (its own, or the paragraph they are in when a list is under
      // them): an item in a list inside an item comes out one level (as Shift+Tab); an item with a
      // list under it, in a list of its own, leaves the list, its words a paragraph and that list after it.
      const itemPath = node.type === 'list-item' ? path : isItemWords(editor, path) ? Path.parent(path) : undefined;
      if (itemPath && Editor.isStart(editor, editor.selection.anchor, itemPath)) {
        if (outdentListItems(editor)) return;
        if (holdsBlocks(editor, Node.get(editor, itemPath) as Element)) {
          const item = Editor.pathRef(editor, itemPath);
          Editor.withoutNormalizing(editor, () => {
            Transforms.liftNodes(editor, { at: itemPath });
            if (item.current) Transforms.unwrapNodes(editor, { at: item.current });
          });
          item.unref();
          return;
        }
      }
      if (node.type !== 'paragraph' && Editor.isStart(editor, editor.selection.anchor, path) && node.type !== 'table-cell') {
        if (node.type === 'list-item') toggleBlock(editor, 'paragraph');
        else Transforms.setNodes<Element>(editor, { type: 'paragraph' }, { at: path });
        return;
      }
    }
    deleteBackward(unit);
  };
  return editor;
}
