// What keeps typing cheap in a long text, and what lands the keys pressed before the editor was there.
import { Editor, Element, Node, Range, Transforms, type Point, type PointRef } from 'slate';
import { defaultScrollSelectionIntoView, ReactEditor } from 'slate-react';
import { tabInText } from './commands';
import { recordWords, type Landing, type WordsAt } from './landing';

/**
 * A long text re-renders only the part a key changed: the top-level blocks are rendered in memoised
 * chunks of CHUNK_SIZE (of CHUNK_SIZE chunks…), so a keystroke in a 5,000-word text re-renders a
 * few dozen blocks, not all of them. No element is added to the page (Slate's default renderChunk).
 */
const CHUNK_SIZE = 8;
export function chunked<E extends Editor>(editor: E): E {
  editor.getChunkSize = (node) => (Editor.isEditor(node) ? CHUNK_SIZE : null);
  return editor;
}

/**
 * After each change, Slate scrolls the caret into view by walking every ancestor's computed style;
 * a caret already in the window (below the fixed toolbar) needs none of that, and typing is that case.
 */
export function scrollCaretIntoView(editor: ReactEditor, domRange: globalThis.Range) {
  const caret = domRange.cloneRange();
  caret.collapse(editor.selection ? Range.isBackward(editor.selection) : false);
  const rect = caret.getBoundingClientRect();
  const toolbar = caret.startContainer.parentElement?.closest('.editor')?.querySelector('.toolbar')?.getBoundingClientRect();
  const top = toolbar && toolbar.bottom > 0 ? toolbar.bottom : 0;
  const inView = rect.height > 0 && rect.top >= top && rect.bottom <= window.innerHeight && rect.left >= 0 && rect.right <= window.innerWidth;
  if (!inView) defaultScrollSelectionIntoView(editor, domRange);
}

/**
 * `@` at the start of a word (not the one in an email address), or the second `[` of `[[`, about to
 * be typed at the caret: the mention picker opens once it is in the text (what follows it is the
 * picker's query), at the point before the trigger.
 */
export function mentionTrigger(editor: Editor, data: string): { trigger: '@' | '[['; at: PointRef } | undefined {
  if (!editor.selection || !Range.isCollapsed(editor.selection)) return undefined;
  const caret = editor.selection.anchor;
  const before = Editor.before(editor, caret);
  const previous = before ? Editor.string(editor, { anchor: before, focus: caret }) : '';
  if (data === '@' && !/[^\s([{"'“‘]/u.test(previous)) return { trigger: '@', at: Editor.pointRef(editor, caret, { affinity: 'backward' }) };
  if (data === '[' && previous === '[' && before) return { trigger: '[[', at: Editor.pointRef(editor, before, { affinity: 'backward' }) };
  return undefined;
}

/**
 * The point of the editor's text at a place in its words (landing.ts recordWords: a mention or an
 * image is one character, other voids none). At a boundary between two texts, the start of the
 * second if `forward`, else the end of the first; past the end, the end.
 */
export function pointAtWords(editor: Editor, { offset, forward }: WordsAt): Point {
  let seen = 0;
  let previous: Point | undefined;
  for (const [text, path] of Node.texts(editor)) {
    const [voidEntry] = Editor.nodes(editor, { at: path, match: (n) => Element.isElement(n) && Editor.isVoid(editor, n) });
    if (voidEntry) {
      const element = voidEntry[0] as Element;
      // Just before a mention: the end of the text before it (Slate keeps one there), not past it.
      if (offset <= seen && previous && Editor.isInline(editor, element)) return previous;
      seen += recordWords([element]).length;
      continue;
    }
    const end = seen + text.text.length;
    if (offset < end || (offset === end && !forward)) return { path, offset: Math.max(0, offset - seen) };
    seen = end;
    previous = { path, offset: text.text.length };
  }
  return Editor.end(editor, []);
}

/**
 * The editor has just mounted where the text was shown as read: the caret goes where the pointer
 * went down (the same place in the same words, or, if the editor holds other words, the same place
 * on the page), else at the start, and the keys pressed meanwhile
 * are typed in, in order, as the editor's own commands (so Markdown shortcuts apply as when typing).
 */
/** Where Ctrl+Home/End (the text's start, end) or Home/End (its block's) put the caret. */
function movedTo(editor: Editor, move: 'start' | 'end' | 'line-start' | 'line-end'): Point {
  if (move === 'start') return Editor.start(editor, []);
  if (move === 'end') return Editor.end(editor, []);
  const block = editor.selection && Editor.above(editor, { match: (n) => Element.isElement(n) && Editor.isBlock(editor, n) });
  if (!block) return move === 'line-end' ? Editor.end(editor, []) : Editor.start(editor, []);
  return move === 'line-end' ? Editor.end(editor, block[1]) : Editor.start(editor, block[1]);
}

export function landPendingInput(editor: Editor, landing: Landing, openPicker: (trigger: '@' | '[[', at: PointRef) => void) {
  landing.opened = false;
  // The focus now, from the text shown as read (ReactEditor.focus waits while operations are pending, and keys pressed meanwhile would go there).
  ReactEditor.toDOMNode(editor, editor).focus({ preventScroll: true });
  let at = Editor.start(editor, []);
  const inWords = landing.at && recordWords(editor.children) === landing.at.words ? pointAtWords(editor, landing.at) : undefined;
  landing.at = undefined;
  if (inWords) at = inWords;
  else if (landing.point) {
    const caret = document.caretPositionFromPoint?.(landing.point.pageX - window.scrollX, landing.point.pageY - window.scrollY);
    const point = caret && ReactEditor.toSlatePoint(editor, [caret.offsetNode, caret.offset], { exactMatch: false, suppressThrow: true });
    if (point) at = point;
  }
  Transforms.select(editor, at);
  let opening: ReturnType<typeof mentionTrigger>;
  for (const key of landing.keys.splice(0)) {
    if ('text' in key) {
      const trigger = mentionTrigger(editor, key.text);
      if (trigger) {
        opening?.at.unref();
        opening = trigger;
      }
      editor.insertText(key.text);
    } else if ('move' in key) Transforms.select(editor, movedTo(editor, key.move));
    else if (key.command === 'tab' || key.command === 'shift-tab') tabInText(editor, key.command === 'shift-tab');
    else if (key.command === 'break') editor.insertBreak();
    else if (key.command === 'soft-break') editor.insertSoftBreak();
    else if (key.command === 'delete-backward') editor.deleteBackward('character');
    else editor.deleteForward('character');
  }
  // The picker of the last trigger typed (it closes by itself if what follows is no query).
  if (opening) openPicker(opening.trigger, opening.at);
}
