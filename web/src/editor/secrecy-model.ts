// A model of how a game master edits rich text, for the property tests of secrecy (CONTRACT
// "Secrets that hold"): documents with marker words in secret and non-secret blocks, and random
// sequences of the editor's own commands (the toolbar, the keyboard, the Markdown shortcuts, the
// mention picker, copy and paste) applied to Slate's editor with our plugin, without a browser.
// Used by secrecy.property.test.ts (every secret word stays secret in the editor) and by
// test/integration/editor-secrets.test.ts (no secret word reaches a player through the API).
// Test code only: nothing in the app imports it.
import fc from 'fast-check';
import { createEditor, Editor, Element as SlateElement, Node, Range, Text, Transforms, type Descendant, type Path, type Point } from 'slate';
import { withHistory } from 'slate-history';
import { walkWithSecrecy } from '../../../src/vocabulary/index.js';
import { indentListItems, insertMention, outdentListItems, isSecretActive, toggleBlock, toggleCallout, toggleMark, toggleSecret, toggleTaskChecked, toggleTaskList, withLoreforge } from './commands';
import type { BlockType } from './types';

/** Secret text is written in these capitals only, visible text in lower case: a capital seen where players read is a leak. */
export const SECRET_LETTERS = /[QXZJ]/;
export const SECRET_WORDS = ['QXZJ', 'JQXZ', 'ZJQX', 'XJZQ', 'QQXJ', 'ZZJX'] as const;
const OPEN_WORDS = ['ash', 'birch', 'cedar', 'dune', 'elm', 'fern'] as const;

/** Mentions in the model name things 1 to 3 (the integration test maps them to real ones). */
export const MODEL_THING_IDS = [1, 2, 3] as const;

type Block = Record<string, unknown> & { type: string; children: unknown[] };

const words = (pool: readonly string[]) => fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));

const leafBlock = (secret: boolean): fc.Arbitrary<Block> =>
  fc
    .record({
      type: fc.constantFrom('paragraph', 'paragraph', 'heading-one', 'heading-two', 'block-quote', 'code-block'),
      text: words(secret ? SECRET_WORDS : OPEN_WORDS),
      mention: fc.option(fc.constantFrom(...MODEL_THING_IDS), { nil: undefined }),
    })
    .map(({ type, text, mention }) => {
      const children: unknown[] =
        mention !== undefined && type === 'paragraph' ? [{ text: `${text} ` }, { type: 'mention', targetType: 'thing', targetId: mention, children: [{ text: '' }] }, { text: '' }] : [{ text }];
      return secret ? { type, isSecret: true, children } : { type, children };
    });

const listBlock = (secret: boolean): fc.Arbitrary<Block> =>
  fc
    .record({
      type: fc.constantFrom('bulleted-list', 'numbered-list'),
      items: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
      // A task list (`checked` on every item), or a plain one.
      checked: fc.option(fc.boolean(), { nil: undefined }),
    })
    .chain(({ type, items, checked }) =>
      fc.tuple(...items.map((itemSecret) => words(secret || itemSecret ? SECRET_WORDS : OPEN_WORDS).map((text) => ({ text, itemSecret })))).map((texts) => {
        const task = checked === undefined ? {} : { checked };
        const children = texts.map(({ text, itemSecret }) => (itemSecret && !secret ? { type: 'list-item', ...task, isSecret: true, children: [{ text }] } : { type: 'list-item', ...task, children: [{ text }] }));
        return secret ? { type, isSecret: true, children } : { type, children };
      }),
    );

/** A callout (its title, when it has one, in visible words) holding one or two paragraphs, one maybe secret. */
const calloutBlock = (secret: boolean): fc.Arbitrary<Block> =>
  fc
    .record({
      kind: fc.constantFrom('note', 'warning', 'tip'),
      title: fc.option(words(OPEN_WORDS), { nil: undefined }),
      inner: fc.array(fc.boolean(), { minLength: 1, maxLength: 2 }),
    })
    .chain(({ kind, title, inner }) =>
      fc.tuple(...inner.map((innerSecret) => words(secret || innerSecret ? SECRET_WORDS : OPEN_WORDS).map((text) => ({ text, innerSecret })))).map((texts) => {
        const children = texts.map(({ text, innerSecret }) => (innerSecret && !secret ? { type: 'paragraph', isSecret: true, children: [{ text }] } : { type: 'paragraph', children: [{ text }] }));
        const callout = { type: 'callout', kind, ...(title === undefined ? {} : { title }), children };
        return secret ? { ...callout, isSecret: true } : callout;
      }),
    );

/** A document of one to five blocks, some secret (top-level, or one item of a list). */
export const documentArbitrary: fc.Arbitrary<Descendant[]> = fc
  .array(
    fc.boolean().chain((secret) => fc.oneof(leafBlock(secret), leafBlock(secret), listBlock(secret), calloutBlock(secret))),
    { minLength: 1, maxLength: 5 },
  )
  .map((blocks) => blocks as unknown as Descendant[]);

/** One thing a game master does: move the caret, select, or use a command. */
export type Command =
  | { kind: 'caret'; at: number; offset: number }
  | { kind: 'blockEdge'; block: number; end: boolean }
  | { kind: 'range'; from: number; fromOffset: number; to: number; toOffset: number }
  | { kind: 'markSecret' }
  | { kind: 'toolbar'; type: BlockType }
  | { kind: 'callout' }
  | { kind: 'taskList' }
  | { kind: 'tickTask' }
  | { kind: 'highlight' }
  | { kind: 'enter' }
  | { kind: 'indent' }
  | { kind: 'outdent' }
  | { kind: 'backspace' }
  | { kind: 'deleteForward' }
  | { kind: 'deleteSelection' }
  | { kind: 'type'; text: string }
  | { kind: 'shortcut'; block: number; text: string }
  | { kind: 'mention'; targetId: number }
  | { kind: 'copyPaste'; from: number; fromOffset: number; to: number; toOffset: number; at: number; offset: number }
  | { kind: 'cutPaste'; from: number; fromOffset: number; to: number; toOffset: number; at: number; offset: number }
  | { kind: 'pasteText'; text: string };

const index = fc.nat({ max: 30 });
const offset = fc.nat({ max: 12 });
const SHORTCUTS = ['- ', '* ', '1. ', '# ', '## ', '> ', '``` ', '```', '---', '> [!note] ', '> [!secret] ', '- [ ] ', '- [x] ', '[ ] '];

export const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('caret' as const), at: index, offset }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('blockEdge' as const), block: index, end: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('range' as const), from: index, fromOffset: offset, to: index, toOffset: offset }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'markSecret' as const }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('toolbar' as const),
      type: fc.constantFrom<BlockType>('paragraph', 'heading-one', 'heading-three', 'block-quote', 'bulleted-list', 'numbered-list', 'code-block'),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'callout' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'taskList' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'tickTask' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'highlight' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'enter' as const }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'indent' as const }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'outdent' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'backspace' as const }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'deleteForward' as const }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'deleteSelection' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('type' as const), text: fc.constantFrom('x', 'new words', '==lit==', '**lit**', ' _lit_', '~~lit~~', ' `lit`', ...SHORTCUTS) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('shortcut' as const), block: index, text: fc.constantFrom(...SHORTCUTS) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('mention' as const), targetId: fc.constantFrom(...MODEL_THING_IDS) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('copyPaste' as const), from: index, fromOffset: offset, to: index, toOffset: offset, at: index, offset }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('cutPaste' as const), from: index, fromOffset: offset, to: index, toOffset: offset, at: index, offset }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('pasteText' as const), text: fc.constantFrom('pasted', 'two\nlines', 'a\n\nb') }), weight: 1 },
);

export const commandsArbitrary = fc.array(commandArbitrary, { minLength: 1, maxLength: 30, size: 'medium' });

/** Slate's editor with our plugin, as the web app builds it (less React, which needs a DOM). */
export function modelEditor(document: Descendant[]): Editor {
  const editor = withLoreforge(withHistory(createEditor()));
  editor.children = structuredClone(document);
  Editor.normalize(editor, { force: true });
  Transforms.select(editor, Editor.end(editor, []));
  return editor;
}

function textPoint(editor: Editor, at: number, offset: number): Point {
  const texts = [...Node.texts(editor)];
  const [leaf, path] = texts[at % texts.length]!;
  return { path, offset: offset % (leaf.text.length + 1) };
}

/** Blocks that hold text (a paragraph, a list item, a heading; not a list or a quote of blocks). */
function textBlocks(editor: Editor): Path[] {
  return [...Editor.nodes(editor, { at: [], match: (n) => SlateElement.isElement(n) && Editor.isBlock(editor, n) && n.children.every((c) => Text.isText(c) || Editor.isInline(editor, c)) })].map(
    ([, path]) => path,
  );
}

function typeText(editor: Editor, text: string) {
  for (const char of text) editor.insertText(char);
}

function pasteAt(editor: Editor, fragment: Descendant[], at: Point) {
  Transforms.select(editor, at);
  if (fragment.length > 0) editor.insertFragment(fragment);
}

/** Applies one command as the web app would (the same functions the toolbar and keys call). */
export function runCommand(editor: Editor, command: Command): void {
  switch (command.kind) {
    case 'caret':
      Transforms.select(editor, textPoint(editor, command.at, command.offset));
      return;
    case 'blockEdge': {
      const blocks = textBlocks(editor);
      if (blocks.length === 0) return;
      const path = blocks[command.block % blocks.length]!;
      Transforms.select(editor, command.end ? Editor.end(editor, path) : Editor.start(editor, path));
      return;
    }
    case 'range':
      Transforms.select(editor, { anchor: textPoint(editor, command.from, command.fromOffset), focus: textPoint(editor, command.to, command.toOffset) });
      return;
    case 'markSecret':
      // The GM's own command, used here only to hide (un-hiding on purpose is the one way out).
      if (!isSecretActive(editor)) toggleSecret(editor);
      return;
    case 'toolbar':
      toggleBlock(editor, command.type);
      return;
    case 'callout':
      toggleCallout(editor);
      return;
    case 'taskList':
      toggleTaskList(editor);
      return;
    case 'tickTask':
      toggleTaskChecked(editor);
      return;
    case 'highlight':
      toggleMark(editor, 'highlight');
      return;
    case 'enter':
      editor.insertBreak();
      return;
    case 'indent':
      indentListItems(editor);
      return;
    case 'outdent':
      outdentListItems(editor);
      return;
    case 'backspace':
      editor.deleteBackward('character');
      return;
    case 'deleteForward':
      editor.deleteForward('character');
      return;
    case 'deleteSelection':
      editor.deleteFragment();
      return;
    case 'type':
      typeText(editor, command.text);
      return;
    case 'shortcut': {
      const blocks = textBlocks(editor);
      if (blocks.length === 0) return;
      Transforms.select(editor, Editor.start(editor, blocks[command.block % blocks.length]!));
      typeText(editor, command.text);
      if (command.text === '```' || command.text === '---') editor.insertBreak();
      return;
    }
    case 'mention': {
      // What the picker hands the editor (a name too, for editors that stored one).
      const target = { targetType: 'thing' as const, targetId: command.targetId, name: 'someone' };
      insertMention(editor, target);
      return;
    }
    case 'copyPaste':
    case 'cutPaste': {
      Transforms.select(editor, { anchor: textPoint(editor, command.from, command.fromOffset), focus: textPoint(editor, command.to, command.toOffset) });
      // A browser copies nothing from a caret (slate-dom's setFragmentData, outside a void).
      if (Range.isCollapsed(editor.selection!) && !Editor.void(editor, { at: editor.selection!.anchor })) return;
      // Through the clipboard as slate-dom puts it there (JSON): new objects, not the document's own.
      const fragment = JSON.parse(JSON.stringify(editor.getFragment())) as Descendant[];
      if (command.kind === 'cutPaste') editor.deleteFragment();
      pasteAt(editor, fragment, textPoint(editor, command.at, command.offset));
      return;
    }
    case 'pasteText': {
      // Plain text from the clipboard, as slate-dom's insertTextData inserts it.
      let split = false;
      for (const line of command.text.split('\n')) {
        if (split) Transforms.splitNodes(editor, { always: true });
        editor.insertText(line);
        split = true;
      }
      return;
    }
  }
}

export interface SecrecyCheck {
  /** Leaves holding secret letters that were checked. */
  checks: number;
  /** Leaves holding secret letters outside any secret element (with their text). */
  leaks: string[];
  /** Text leaves that carry `isSecret` themselves (the server honours it on elements only). */
  secretLeaves: number;
}

/** Where the shared definition of secrecy (src/vocabulary) puts every secret letter of the document. */
export function checkSecrecy(document: readonly unknown[]): SecrecyCheck {
  const result: SecrecyCheck = { checks: 0, leaks: [], secretLeaves: 0 };
  walkWithSecrecy(document, (node, secret) => {
    if (!Text.isText(node)) return;
    if ((node as { isSecret?: unknown }).isSecret === true) result.secretLeaves += 1;
    if (!SECRET_LETTERS.test(node.text)) return;
    result.checks += 1;
    if (!secret) result.leaks.push(node.text);
  });
  return result;
}

/** Documents as command sequences leave them (fixed seed: the same on every run). */
export function sampleEditedDocuments(seed: number, count: number): Descendant[][] {
  return fc.sample(fc.tuple(documentArbitrary, commandsArbitrary), { seed, numRuns: count }).map(([document, commands]) => {
    const editor = modelEditor(document);
    for (const command of commands) runCommand(editor, command);
    return editor.children;
  });
}
