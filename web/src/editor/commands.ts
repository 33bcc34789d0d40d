// What the toolbar, the keyboard shortcuts and the Markdown shortcuts do to the document.
import { Editor, Element as SlateElement, Node, Path, Range, Transforms } from 'slate';
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

/** GM-only: `isSecret` on the top-level block(s) of the selection. */
export function isSecretActive(editor: Editor): boolean {
  if (!editor.selection) return false;
  const top = editor.selection.anchor.path[0]!;
  const node = editor.children[top] as Element | undefined;
  return node?.isSecret === true;
}

export function toggleSecret(editor: Editor): void {
  if (!editor.selection) return;
  const on = !isSecretActive(editor);
  const [start, end] = Range.edges(editor.selection);
  for (let i = start.path[0]!; i <= end.path[0]!; i++) {
    if (on) Transforms.setNodes<Element>(editor, { isSecret: true }, { at: [i] });
    else Transforms.unsetNodes(editor, 'isSecret', { at: [i] });
  }
}

export function activeLink(editor: Editor): [Element, Path] | undefined {
  const [entry] = Editor.nodes<Element>(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'link' });
  return entry;
}

export function setLink(editor: Editor, url: string): void {
  const existing = activeLink(editor);
  if (existing) {
    Transforms.setNodes<Element>(editor, { url }, { at: existing[1] });
    return;
  }
  const link: Element = { type: 'link', url, children: [] };
  if (!editor.selection || Range.isCollapsed(editor.selection)) {
    Transforms.insertNodes(editor, { ...link, children: [{ text: url }] });
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

export function insertMention(editor: Editor, target: { targetType: 'thing' | 'arc'; targetId: number; name: string }): void {
  Transforms.insertNodes(editor, { type: 'mention', targetType: target.targetType, targetId: target.targetId, children: [{ text: target.name }] });
  Transforms.move(editor);
  Transforms.insertText(editor, ' ');
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

/** Slate plugin: elements that are inline or void, and the Markdown shortcuts. */
export function withLoreforge(editor: Editor): Editor {
  const { isInline, isVoid, insertText, insertBreak, deleteBackward } = editor;
  editor.isInline = (element) => INLINE_TYPES.has(element.type) || isInline(element);
  editor.isVoid = (element) => VOID_TYPES.has(element.type) || isVoid(element);

  editor.insertText = (text) => {
    const { selection } = editor;
    if (text.endsWith(' ') && selection && Range.isCollapsed(selection)) {
      const block = currentBlock(editor);
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
          Transforms.insertNodes(editor, { type: 'paragraph', children: [{ text: '' }] }, { at: Path.next(block[1]), select: true });
          return;
        }
      }
    }
    insertText(text);
  };

  editor.insertBreak = () => {
    const block = currentBlock(editor);
    if (block && editor.selection && Range.isCollapsed(editor.selection)) {
      const [node, path] = block;
      const text = Node.string(node);
      if (node.type === 'paragraph' && (text === '```' || text === '---')) {
        Transforms.delete(editor, { at: { anchor: Editor.start(editor, path), focus: Editor.end(editor, path) } });
        if (text === '```') {
          Transforms.setNodes<Element>(editor, { type: 'code-block' }, { at: path });
        } else {
          Transforms.setNodes<Element>(editor, { type: 'divider' }, { at: path });
          Transforms.insertNodes(editor, { type: 'paragraph', children: [{ text: '' }] }, { at: Path.next(path), select: true });
        }
        return;
      }
      // Enter in a code block is a line break; Enter on an empty list item or heading ends it.
      if (node.type === 'code-block') {
        editor.insertText('\n');
        return;
      }
      if (node.type === 'list-item' && text === '') {
        toggleBlock(editor, 'paragraph');
        return;
      }
      if ((HEADINGS as readonly string[]).includes(node.type) && Range.equals(editor.selection, Editor.range(editor, Editor.end(editor, path)))) {
        Transforms.insertNodes(editor, { type: 'paragraph', children: [{ text: '' }] }, { at: Path.next(path), select: true });
        return;
      }
    }
    insertBreak();
  };

  editor.deleteBackward = (unit) => {
    const block = currentBlock(editor);
    if (block && editor.selection && Range.isCollapsed(editor.selection)) {
      const [node, path] = block;
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
