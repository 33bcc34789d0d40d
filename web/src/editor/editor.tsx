import * as Dialog from '@radix-ui/react-dialog';
import { useCallback, useMemo, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { createEditor, Editor, Element as SlateElement, Path, Range, Transforms, type Descendant, type PointRef } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, ReactEditor, Slate, useSlate, withReact } from 'slate-react';
import { useArcs } from '../arcs/api';
import { useAllThings } from '../things/api';
import {
  activeLink,
  insertDivider,
  insertMention,
  insertTable,
  insertTableColumn,
  insertTableRow,
  isBlockActive,
  isCalloutActive,
  isMarkActive,
  isSecretActive,
  isTaskListActive,
  moveInTable,
  removeLink,
  setLink,
  toggleBlock,
  toggleCallout,
  toggleMark,
  toggleSecret,
  toggleTaskChecked,
  toggleTaskList,
  withLoreforge,
} from './commands';
import { formText } from '../ui/field';
import { FormDialog } from '../ui/form-dialog';
import { EditorCampaignContext, MentionNamesContext, RenderElement, RenderLeaf, type MentionNames } from './elements';
import { MentionPicker, type MentionTarget } from './mention-picker';
import { type BlockType, type MarkName } from './types';
import { ImageButton } from './image-dialog';

const HOTKEYS: Record<string, MarkName> = { b: 'bold', i: 'italic', u: 'underline', '`': 'code' };
const SHIFT_HOTKEYS: Record<string, MarkName> = { x: 'strikethrough', h: 'highlight' };

export interface RichTextEditorProps {
  /** The accessible name of the editing area ("Description", "Hook"…). */
  label: string;
  initialValue: Descendant[];
  onChange: (value: Descendant[]) => void;
  campaignSlug: string;
  /** Whether the user may upload images (premium); others are told why not. */
  canUpload: boolean;
}

/** A Slate editor for one rich-text field, with a toolbar, keyboard and Markdown shortcuts. */
export function RichTextEditor({ label, initialValue, onChange, campaignSlug, canUpload }: RichTextEditorProps) {
  const editor = useMemo(() => withLoreforge(withHistory(withReact(createEditor()))), []);
  // `at`: where the trigger's last character went in (what follows it until the picker has the focus is the picker's).
  const [mentionOpen, setMentionOpen] = useState<{ trigger: string; at?: PointRef } | undefined>();
  const mentionNames = useMentionNames(campaignSlug);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // A field inside the text (a callout's title) keeps its own keys.
    if (event.target instanceof HTMLInputElement) return;
    const mod = event.ctrlKey || event.metaKey;
    if (mod && !event.altKey && event.key === 'Enter' && toggleTaskChecked(editor)) {
      event.preventDefault();
      return;
    }
    if (mod && !event.altKey) {
      const key = event.key.toLowerCase();
      const mark = key === 'x' || key === 'h' ? (event.shiftKey ? SHIFT_HOTKEYS[key] : undefined) : HOTKEYS[key];
      if (mark) {
        event.preventDefault();
        toggleMark(editor, mark);
        return;
      }
    }
    if (event.key === 'Tab' && isBlockActive(editor, 'code-block')) {
      event.preventDefault();
      editor.insertText('  ');
      return;
    }
    if (event.key === 'Tab' && !mod && !event.altKey && moveInTable(editor, event.shiftKey)) event.preventDefault();
  };

  const onDomBeforeInput = (event: InputEvent) => {
    // `@` at the start of a word (not the one in an email address), or the second `[` of `[[`,
    // opens the mention picker.
    if (event.inputType !== 'insertText' || !editor.selection || !Range.isCollapsed(editor.selection)) return;
    const before = Editor.before(editor, editor.selection.anchor);
    const previous = before ? Editor.string(editor, { anchor: before, focus: editor.selection.anchor }) : '';
    const open = (trigger: string) => {
      const at = Editor.pointRef(editor, editor.selection!.anchor, { affinity: 'backward' });
      setTimeout(() => setMentionOpen({ trigger, at }), 0);
    };
    if (event.data === '@' && !/[^\s([{"'“‘]/u.test(previous)) open('@');
    if (event.data === '[' && previous === '[') open('[[');
  };

  // The letters typed after the trigger before the picker had the focus: out of the text, into the picker.
  const at = mentionOpen?.at;
  const takeTyped = useCallback(() => {
    const start = at?.current ? Editor.after(editor, at.current) : undefined;
    const caret = editor.selection && Range.isCollapsed(editor.selection) ? editor.selection.anchor : undefined;
    if (!start || !caret || !Path.equals(start.path, caret.path) || caret.offset <= start.offset) return '';
    const range = { anchor: start, focus: caret };
    const typed = Editor.string(editor, range);
    Transforms.delete(editor, { at: range });
    return typed;
  }, [editor, at]);

  const pickMention = (target: MentionTarget | undefined, typed: string) => {
    const trigger = mentionOpen?.trigger ?? '';
    mentionOpen?.at?.unref();
    setMentionOpen(undefined);
    ReactEditor.focus(editor);
    if (!target) {
      // Closed without a pick: what was typed after `@` or `[[` is text, and stays.
      if (trigger && typed) {
        if (!editor.selection) Transforms.select(editor, Editor.end(editor, []));
        Transforms.insertText(editor, typed);
      }
      return;
    }
    mentionNames.learn(target);
    if (editor.selection && trigger) Transforms.delete(editor, { distance: trigger.length, unit: 'character', reverse: true });
    insertMention(editor, target);
  };

  // A click on a mention puts the caret right after it, never inside it (where typing is lost).
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const mention = event.target instanceof HTMLElement ? event.target.closest('.mention') : null;
    if (!mention) return false;
    const node = ReactEditor.toSlateNode(editor, mention);
    if (!SlateElement.isElement(node) || !Editor.isInline(editor, node)) return false;
    const path = ReactEditor.findPath(editor, node);
    Transforms.select(editor, Editor.start(editor, Path.next(path)));
    ReactEditor.focus(editor);
    return true;
  };

  return (
    <div className="editor">
      <MentionNamesContext.Provider value={mentionNames.name}>
        <EditorCampaignContext.Provider value={campaignSlug}>
        <Slate editor={editor} initialValue={initialValue} onValueChange={onChange}>
          <Toolbar label={label} onMention={() => setMentionOpen({ trigger: '' })} campaignSlug={campaignSlug} canUpload={canUpload} />
          <Editable
            aria-label={label}
            aria-multiline="true"
            className="editable"
            // Slate's default styles are an inline style element; styles.css has them instead.
            disableDefaultStyles
            renderElement={RenderElement}
            renderLeaf={RenderLeaf}
            onKeyDown={onKeyDown}
            onClick={onClick}
            onDOMBeforeInput={onDomBeforeInput}
            spellCheck
          />
        </Slate>
        </EditorCampaignContext.Provider>
      </MentionNamesContext.Provider>
      {mentionOpen && <MentionPicker campaignSlug={campaignSlug} onPick={pickMention} takeTyped={takeTyped} />}
    </div>
  );
}

/**
 * The names mentions show: the campaign's things and arcs as the app lists them (the same queries
 * as the sidebar, refreshed after every write), and the records the picker inserted meanwhile.
 */
function useMentionNames(campaignSlug: string): { name: MentionNames; learn: (target: MentionTarget) => void } {
  const things = useAllThings(campaignSlug);
  const arcs = useArcs(campaignSlug);
  const [learned, setLearned] = useState<ReadonlyMap<string, string>>(new Map());
  const known = useMemo(() => {
    const names = new Map(learned);
    for (const thing of things.data ?? []) names.set(`thing-${thing.id}`, thing.name);
    for (const arc of arcs.data ?? []) names.set(`arc-${arc.id}`, arc.name);
    return names;
  }, [learned, things.data, arcs.data]);
  const loaded = things.isSuccess && arcs.isSuccess;
  const name = useCallback<MentionNames>((target) => known.get(`${target.targetType}-${target.targetId}`) ?? (loaded ? null : undefined), [known, loaded]);
  const learn = useCallback((target: MentionTarget) => setLearned((old) => new Map(old).set(`${target.targetType}-${target.targetId}`, target.name)), []);
  return { name, learn };
}

function ToolButton({ label, active, onPress, children }: { label: string; active?: boolean; onPress: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      aria-pressed={active}
      className={active ? 'tool active' : 'tool'}
      onMouseDown={(e) => {
        // Keep the editor's selection: the command applies where the user was.
        e.preventDefault();
        onPress();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onPress();
        }
      }}
    >
      {children}
    </button>
  );
}

function Toolbar({ label, onMention, campaignSlug, canUpload }: { label: string; onMention: () => void; campaignSlug: string; canUpload: boolean }) {
  const editor = useSlate();
  const mark = (name: MarkName, text: string, shortcut: string, glyph: ReactNode) => (
    <ToolButton label={`${text} (${shortcut})`} active={isMarkActive(editor, name)} onPress={() => toggleMark(editor, name)}>
      {glyph}
    </ToolButton>
  );
  const block = (type: BlockType, text: string, glyph: ReactNode) => (
    <ToolButton label={text} active={isBlockActive(editor, type)} onPress={() => toggleBlock(editor, type)}>
      {glyph}
    </ToolButton>
  );
  return (
    <div role="toolbar" aria-label={`${label}: formatting`} className="toolbar">
      {mark('bold', 'Bold', 'Ctrl+B', <b>B</b>)}
      {mark('italic', 'Italic', 'Ctrl+I', <i>I</i>)}
      {mark('underline', 'Underline', 'Ctrl+U', <u>U</u>)}
      {mark('strikethrough', 'Strikethrough', 'Ctrl+Shift+X', <s>S</s>)}
      {mark('code', 'Code', 'Ctrl+`', <code>{'<>'}</code>)}
      {mark('highlight', 'Highlight', 'Ctrl+Shift+H', <mark>H</mark>)}
      <span className="separator" />
      {block('heading-one', 'Heading 1', 'H1')}
      {block('heading-two', 'Heading 2', 'H2')}
      {block('heading-three', 'Heading 3', 'H3')}
      {block('block-quote', 'Quote', '❝')}
      {block('bulleted-list', 'Bulleted list', '•')}
      {block('numbered-list', 'Numbered list', '1.')}
      <ToolButton label="Task list (Ctrl+Enter ticks a task)" active={isTaskListActive(editor)} onPress={() => toggleTaskList(editor)}>
        ☑
      </ToolButton>
      {block('code-block', 'Code block', '{ }')}
      <ToolButton label="Callout" active={isCalloutActive(editor)} onPress={() => toggleCallout(editor)}>
        ⓘ
      </ToolButton>
      <ToolButton label="Divider" onPress={() => insertDivider(editor)}>
        ―
      </ToolButton>
      <ToolButton label="Table" onPress={() => insertTable(editor)}>
        ▦
      </ToolButton>
      {isBlockActive(editor, 'table') && (
        <>
          <ToolButton label="Add a row below" onPress={() => insertTableRow(editor)}>
            +Row
          </ToolButton>
          <ToolButton label="Add a column to the right" onPress={() => insertTableColumn(editor)}>
            +Col
          </ToolButton>
        </>
      )}
      <span className="separator" />
      <LinkButton />
      <ImageButton campaignSlug={campaignSlug} canUpload={canUpload} />
      <ToolButton label="Mention a thing or an arc (@)" onPress={onMention}>
        @
      </ToolButton>
      <ToolButton label="GM only (hidden from players)" active={isSecretActive(editor)} onPress={() => toggleSecret(editor)}>
        GM
      </ToolButton>
    </div>
  );
}

function LinkButton() {
  const editor = useSlate();
  const link = activeLink(editor);
  // The dialog takes focus from the editor: its selection is kept for the command, and the editor
  // gets focus back when the dialog closes.
  const [selection, setSelection] = useState(editor.selection);
  return (
    <FormDialog
      trigger={
        <button type="button" className={link ? 'tool active' : 'tool'} aria-label="Link" title="Link" onMouseDown={(e) => e.preventDefault()}>
          Link
        </button>
      }
      title={link ? 'Edit link' : 'Insert link'}
      submitLabel="Apply"
      onOpenChange={(open) => open && setSelection(editor.selection)}
      onClosed={() => ReactEditor.focus(editor)}
      onSubmit={(form) => {
        if (selection) Transforms.select(editor, selection);
        const url = formText(form, 'url').trim();
        if (url === '') removeLink(editor);
        else setLink(editor, url);
      }}
      extraActions={
        link && (
          <Dialog.Close asChild>
            <button type="button" onClick={() => removeLink(editor)}>
              Remove link
            </button>
          </Dialog.Close>
        )
      }
    >
      {() => (
        <div className="field">
          <label htmlFor="link-url">Address (https://…, mailto:… or /path)</label>
          <input id="link-url" name="url" type="url" defaultValue={typeof link?.[0].url === 'string' ? link[0].url : ''} autoFocus />
        </div>
      )}
    </FormDialog>
  );
}
