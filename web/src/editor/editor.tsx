import { useCallback, useContext, useLayoutEffect, useMemo, useRef, useState, type RefObject, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { createEditor, Editor, Element as SlateElement, Path, Range, Transforms, type Descendant, type PointRef } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, ReactEditor, Slate, useSlate, withReact } from 'slate-react';
import { useArcs } from '../arcs/api';
import { useAllThings } from '../things/api';
import {
  insertDivider,
  insertTable,
  insertTableColumn,
  insertTableRow,
  isBlockActive,
  isCalloutActive,
  isMarkActive,
  isSecretActive,
  isTaskListActive,
  moveOverInlineVoid,
  tabInText,
  toggleBlock,
  toggleCallout,
  toggleMark,
  toggleSecret,
  toggleTaskChecked,
  toggleTaskList,
  withLoreforge,
} from './commands';
import { AwaitImageSizes, EditorCampaignContext, MentionNamesContext, RenderElement, RenderLeaf, type MentionNames } from './elements';
import { MentionPicker, type MentionPickerHandle, type MentionTarget, type MentionTrigger } from './mention-picker';
import { type BlockType, type MarkName } from './types';
import { ImageButton } from './image-dialog';
import { LinkButton } from './link-dialog';
import { LandingContext } from './landing';
import { chunked, landPendingInput, mentionTrigger, scrollCaretIntoView } from './typing';

/** Keys that are only modifiers (pressed on their own before the key they modify). */
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock']);

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
  /** The record being written is GM-only (a thing the mention picker creates is then GM-only by default). */
  recordGmOnly?: boolean;
}

/** A Slate editor for one rich-text field, with a toolbar, keyboard and Markdown shortcuts. */
export function RichTextEditor({ label, initialValue, onChange, campaignSlug, canUpload, recordGmOnly }: RichTextEditorProps) {
  const editor = useMemo(() => chunked(withLoreforge(withHistory(withReact(createEditor())))), []);
  // Where the mention picker was opened (the point before its trigger), while it is open.
  const [mention, setMention] = useState<MentionTrigger | undefined>();
  const picker = useRef<MentionPickerHandle>(null);
  const linkButton = useRef<HTMLButtonElement>(null);
  const closeMention = useCallback(() => setMention(undefined), []);
  const mentionNames = useMentionNames(campaignSlug);
  // Opened from the text shown as read: the caret and the keys pressed meanwhile land here.
  const landing = useContext(LandingContext);
  // Escape was the last key: the next Tab is the browser's (see onKeyDown).
  const tabLeaves = useRef(false);
  // Whether the writer reached into the text since the focus came from outside the editor (a click,
  // a key other than Tab, the text shown as read clicked): until then Tab is the browser's, so the
  // keyboard passes an editor whose caret sits in a list, a table or a code block.
  const reached = useRef(false);
  useLayoutEffect(() => {
    // `@` (or `[[`) among the keys pressed meanwhile opens the picker as typed into the editor would.
    if (landing?.opened) {
      // Reached by hand (a click, keys) on the text shown as read, not by the focus alone. Set after
      // the landing, whose focus comes from outside the editor (onFocus would clear it).
      const byHand = landing.keys.length > 0 || landing.point !== undefined;
      landPendingInput(editor, landing, (trigger, at) => setMention({ trigger, at }));
      reached.current = byHand;
    }
  }, [editor, landing]);

  // The selection as the page shows it now (Slate takes the browser's a moment later, and not at
  // all after some changes: Home right after a mention was inserted).
  const takeBrowserSelection = () => {
    const range = window.getSelection();
    const selected = range && range.rangeCount > 0 ? ReactEditor.toSlateRange(editor, range, { exactMatch: false, suppressThrow: true }) : null;
    if (selected && !(editor.selection && Range.equals(selected, editor.selection))) Transforms.select(editor, selected);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // A field inside the text (a callout's title) keeps its own keys.
    if (event.target instanceof HTMLInputElement) return;
    if (mention && picker.current?.keyDown(event)) return;
    // Tab is the text's own in a list, a table and a code block: Escape, then Tab or Shift+Tab,
    // moves the focus on from anywhere in it (the keyboard is never held in the text).
    if (event.key === 'Escape') {
      tabLeaves.current = true;
      return;
    }
    if (event.key === 'Tab' && tabLeaves.current) {
      tabLeaves.current = false;
      return;
    }
    if (!MODIFIER_KEYS.has(event.key)) {
      tabLeaves.current = false;
      if (event.key !== 'Tab') reached.current = true;
    }
    const mod = event.ctrlKey || event.metaKey;
    // The caret passes a mention in one step (Slate would stop inside it).
    if ((event.key === 'ArrowLeft' || event.key === 'ArrowRight') && !mod && !event.altKey && !event.shiftKey) {
      takeBrowserSelection();
      if (moveOverInlineVoid(editor, event.key === 'ArrowLeft')) {
        event.preventDefault();
        return;
      }
    }
    // Ctrl+K here is a link (the quick switcher keeps Ctrl+K everywhere else: it ignores a handled key).
    if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
      event.preventDefault();
      takeBrowserSelection();
      linkButton.current?.click();
      return;
    }
    // Ctrl+Home / Ctrl+End move the editor's own selection: right even while the caret handed over
    // by the text shown as read is still being drawn (which would undo the browser's own move).
    if (mod && !event.altKey && !event.shiftKey && (event.key === 'Home' || event.key === 'End')) {
      event.preventDefault();
      Transforms.select(editor, event.key === 'End' ? Editor.end(editor, []) : Editor.start(editor, []));
      return;
    }
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
    // Tab in a code block, a table or a list is the text's (commands.ts tabInText): even where
    // nothing moves, the focus stays, so words typed on never go to the next field or button.
    if (event.key === 'Tab' && !mod && !event.altKey && reached.current) {
      takeBrowserSelection();
      if (tabInText(editor, event.shiftKey)) event.preventDefault();
    }
  };

  const openMention = (trigger: MentionTrigger['trigger'], at: PointRef) => {
    mention?.at.unref();
    setMention({ trigger, at });
  };

  const onDomBeforeInput = (event: InputEvent) => {
    if (event.inputType !== 'insertText' || event.data === null) return;
    const opening = mentionTrigger(editor, event.data);
    if (opening) setTimeout(() => openMention(opening.trigger, opening.at), 0);
  };

  // The toolbar's @: the trigger typed at the caret.
  const mentionFromToolbar = () => {
    ReactEditor.focus(editor);
    if (!editor.selection) Transforms.select(editor, Editor.end(editor, []));
    const at = Editor.pointRef(editor, editor.selection!.anchor, { affinity: 'backward' });
    editor.insertText('@');
    openMention('@', at);
  };

  // A click on a mention puts the caret right after it, never inside it (where typing is lost).
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    // A click reaches into the text (after the focus it may have brought, which cleared `reached`).
    reached.current = true;
    const mention = event.target instanceof HTMLElement ? event.target.closest('.mention') : null;
    if (!mention) return false;
    const node = ReactEditor.toSlateNode(editor, mention);
    if (!SlateElement.isElement(node) || !Editor.isInline(editor, node)) return false;
    // Ctrl+click (Cmd+click) opens the mentioned record in a new tab, as a link does.
    const slug = mentionNames.slug(`${String(node.targetType)}-${String(node.targetId)}`);
    if ((event.ctrlKey || event.metaKey) && slug) {
      window.open(`/campaigns/${campaignSlug}/${node.targetType === 'arc' ? 'arcs' : 'things'}/${slug}`, '_blank', 'noopener');
      return true;
    }
    const path = ReactEditor.findPath(editor, node);
    Transforms.select(editor, Editor.start(editor, Path.next(path)));
    ReactEditor.focus(editor);
    return true;
  };

  return (
    <div className="editor">
      <MentionNamesContext.Provider value={mentionNames.name}>
        {/* The text's images wait for their sizes (editor/api.ts): */}<EditorCampaignContext.Provider value={campaignSlug}><AwaitImageSizes slug={campaignSlug} value={initialValue} />
        <Slate editor={editor} initialValue={initialValue} onValueChange={onChange}>
          <Toolbar label={label} linkButton={linkButton} onMention={mentionFromToolbar} campaignSlug={campaignSlug} canUpload={canUpload} />
          <Editable
            aria-label={label}
            aria-multiline="true"
            className="editable"
            // Slate's default styles are an inline style element; styles.css has them instead.
            disableDefaultStyles
            renderElement={RenderElement}
            renderLeaf={RenderLeaf}
            onKeyDown={onKeyDown}
            onFocus={(event) => {
              // From outside the editor (not its toolbar, picker or dialogs' return): not reached yet.
              if (!(event.relatedTarget instanceof Node && event.currentTarget.closest('.editor')?.contains(event.relatedTarget))) reached.current = false;
            }}
            onClick={onClick}
            onDOMBeforeInput={onDomBeforeInput}
            scrollSelectionIntoView={scrollCaretIntoView}
            spellCheck
          />
          {mention && (
            <MentionPicker
              ref={picker}
              campaignSlug={campaignSlug}
              recordGmOnly={recordGmOnly}
              open={mention}
              onPicked={(target) => {
                mentionNames.learn(target);
                setMention(undefined);
              }}
              onClose={closeMention}
            />
          )}
        </Slate>
        </EditorCampaignContext.Provider>
      </MentionNamesContext.Provider>
    </div>
  );
}

/**
 * The names mentions show: the campaign's things and arcs as the app lists them (the same queries
 * as the sidebar, refreshed after every write), and the records the picker inserted meanwhile.
 */
function useMentionNames(campaignSlug: string): { name: MentionNames; learn: (target: MentionTarget) => void; slug: (key: string) => string | undefined } {
  const things = useAllThings(campaignSlug);
  const arcs = useArcs(campaignSlug);
  const [learned, setLearned] = useState<ReadonlyMap<string, MentionTarget>>(new Map());
  const known = useMemo(() => {
    const records = new Map<string, { name: string; slug?: string }>(learned);
    for (const thing of things.data ?? []) records.set(`thing-${thing.id}`, thing);
    for (const arc of arcs.data ?? []) records.set(`arc-${arc.id}`, arc);
    return records;
  }, [learned, things.data, arcs.data]);
  const loaded = things.isSuccess && arcs.isSuccess;
  const name = useCallback<MentionNames>((target) => known.get(`${target.targetType}-${target.targetId}`)?.name ?? (loaded ? null : undefined), [known, loaded]);
  const learn = useCallback((target: MentionTarget) => setLearned((old) => new Map(old).set(`${target.targetType}-${target.targetId}`, target)), []);
  const slug = useCallback((key: string) => known.get(key)?.slug, [known]);
  return { name, learn, slug };
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

function Toolbar({ label, linkButton, onMention, campaignSlug, canUpload }: { label: string; linkButton: RefObject<HTMLButtonElement | null>; onMention: () => void; campaignSlug: string; canUpload: boolean }) {
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
        {/* An "i" in a circle drawn by CSS: "ⓘ" is missing from common fonts (a blank box on Debian's). */}
        <span className="glyph-circled">i</span>
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
      <LinkButton ref={linkButton} />
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
