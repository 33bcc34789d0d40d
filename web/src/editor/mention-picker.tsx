// The mention picker of `@` and `[[`: a popover at the caret while the caret stays in the text. What
// is typed after the trigger is the query (it is text until a record is picked, so no letter is
// ever lost or lands elsewhere); ArrowUp/Down move the highlight (it stays on the record it is on
// while the list refreshes and that record is still listed), Enter or Tab inserts (pressed before
// the list for what was typed is in, once it is), Escape or a
// click elsewhere closes and leaves the text. Records found by an alias show their name and the
// alias. "Create “…”" makes a thing of a chosen type and mentions it, with the visibility shown and
// chosen there ("GM only", Alt+G): GM-only by default when the trigger is inside a secret, the record
// being written is GM-only, or the campaign's things are GM-only by default, so a name typed in a
// secret never reaches players through lists, summaries or search.
import { useEffect, useEffectEvent, useId, useImperativeHandle, useLayoutEffect, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { createPortal } from 'react-dom';
import { Editor, Transforms, type PointRef } from 'slate';
import { ReactEditor, useSlate } from 'slate-react';
import { messageOf } from '../api/client';
import { useCampaign } from '../campaigns/api';
import { useCreateThing, useThingTypes } from '../things/api';
import { useMentionSearch, type MentionCandidate } from './api';
import { insertMention, isInsideSecret, mentionQuery } from './commands';
import './mention-picker.css';
import { useDebounced } from '../ui/debounce';

export interface MentionTarget {
  targetType: 'thing' | 'arc';
  targetId: number;
  name: string;
  /** The record's address (a Ctrl+click on the mention opens it). */
  slug?: string;
}

/** Where a picker was opened: the trigger typed and the point just before it. */
export interface MentionTrigger {
  trigger: '@' | '[[';
  at: PointRef;
}

export interface MentionPickerHandle {
  /** The editor's keys while the picker is open: true when the picker took the key. */
  keyDown: (event: KeyboardEvent) => boolean;
}

type Item = { key: string; label: string; detail?: string; result?: MentionCandidate; create?: true; typeId?: number };

export function MentionPicker({
  campaignSlug,
  open,
  onPicked,
  onClose,
  recordGmOnly = false,
  ref,
}: {
  campaignSlug: string;
  /** The record being written is GM-only: a thing created here is GM-only unless the GM unticks it. */
  recordGmOnly?: boolean;
  open: MentionTrigger;
  /** A record was inserted (its name is known now). */
  onPicked: (target: MentionTarget) => void;
  onClose: () => void;
  ref?: Ref<MentionPickerHandle>;
}) {
  const editor = useSlate();
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const typed = mentionQuery(editor, open.at.current, open.trigger);
  const query = typed?.query.trim() ?? '';
  const debounced = useDebounced(query, 120);
  const search = useMentionSearch(campaignSlug, debounced);
  const types = useThingTypes(campaignSlug);
  const create = useCreateThing(campaignSlug);
  // The name being created (the type is chosen next), and the record the highlight is on.
  const [creating, setCreating] = useState<string | undefined>();
  const [chosen, setChosen] = useState<string | undefined>();
  // Whether the thing being created is GM-only (decided when "Create" is chosen, then the GM's).
  const [gmOnly, setGmOnly] = useState(false);
  const campaign = useCampaign(campaignSlug);
  const answered = debounced === query && !search.isPlaceholderData && !search.isFetching;

  const results = (debounced === '' ? [] : (search.data?.results ?? [])).filter((r) => r.type !== 'campaign');
  const exact = results.some((r) => r.name.toLocaleLowerCase() === query.toLocaleLowerCase());
  const items: Item[] =
    creating !== undefined
      ? (types.data ?? []).map((type) => ({ key: `type-${type.id}`, label: type.name, typeId: type.id }))
      : [
          ...results.map((r) => ({ key: `${r.type}-${r.id}`, label: r.name, detail: r.alias !== undefined ? `alias: ${r.alias}` : r.type, result: r })),
          ...(query !== '' && !exact ? [{ key: 'create', label: `Create “${query}”…`, create: true as const }] : []),
        ];
  const active = items.find((item) => item.key === chosen) ?? items[0];
  // The query for which Enter (or Tab) was pressed before its answer was in.
  const waiting = useRef<string>(undefined);
  const optionId = (item: Item) => `${id}-${item.key}`;

  const pick = (target: MentionTarget) => {
    const now = mentionQuery(editor, open.at.current, open.trigger);
    if (now) Transforms.delete(editor, { at: now.range });
    if (!editor.selection) Transforms.select(editor, Editor.end(editor, []));
    insertMention(editor, target);
    ReactEditor.focus(editor);
    onPicked(target);
  };

  const choose = (item: Item | undefined) => {
    if (!item) return;
    if (item.result) pick({ targetType: item.result.type as 'thing' | 'arc', targetId: item.result.id, name: item.result.name, slug: item.result.slug });
    else if (item.create) {
      const at = open.at.current;
      setGmOnly(recordGmOnly || (at !== null && isInsideSecret(editor, at.path)) || campaign.data?.data.defaultVisibility === 'gm');
      setCreating(query);
      setChosen(undefined);
    } else if (item.typeId !== undefined && creating !== undefined && !create.isPending) {
      create.mutate({ name: creating, typeId: item.typeId, visibility: gmOnly ? 'gm' : 'all' }, { onSuccess: (thing) => pick({ targetType: 'thing', targetId: thing.id, name: thing.name, slug: thing.slug }) });
    }
  };

  useImperativeHandle(ref, () => ({
    keyDown: (event) => {
      if (typed && creating !== undefined && event.altKey && !event.ctrlKey && !event.metaKey && event.code === 'KeyG') {
        setGmOnly((was) => !was);
        event.preventDefault();
        event.stopPropagation();
        return true;
      }
      if (!typed || event.altKey || event.ctrlKey || event.metaKey) return false;
      const move = (by: number) => {
        const index = active ? items.indexOf(active) : -1;
        const next = items[(index + by + items.length) % items.length];
        if (next) setChosen(next.key);
      };
      if (event.key === 'ArrowDown') move(1);
      else if (event.key === 'ArrowUp') move(-1);
      else if (event.key === 'Escape') {
        if (creating !== undefined) setCreating(undefined);
        else onClose();
      } else if (event.key === 'Enter' || (event.key === 'Tab' && !event.shiftKey)) {
        // What is highlighted is for the text typed (not an older answer) before Enter takes it: while
        // the list for it is still being found, the pick waits for that answer (typing on cancels it).
        if (answered || creating !== undefined) choose(active);
        else waiting.current = query;
      } else return false;
      event.preventDefault();
      event.stopPropagation();
      return true;
    },
  }));

  // The answer to the query Enter was pressed for is in: its highlighted record is taken. Another query typed since: nothing is.
  const takeWaiting = useEffectEvent(() => {
    if (waiting.current === undefined || (waiting.current === query && !answered)) return;
    const pressedFor = waiting.current;
    waiting.current = undefined;
    if (pressedFor === query) choose(active);
  });
  useEffect(() => takeWaiting(), [query, answered]);

  // The caret left the trigger's text (another block, before the trigger, a newline): closed.
  const closed = typed === undefined;
  useEffect(() => {
    if (closed) onClose();
  }, [closed, onClose]);

  // Another query: back to the list (a type is chosen for the name typed).
  const [createdFor, setCreatedFor] = useState(query);
  if (createdFor !== query) {
    setCreatedFor(query);
    setCreating(undefined);
  }

  // At the caret: below the trigger, or above it when there is no room below; inside the viewport.
  useLayoutEffect(() => {
    const place = () => {
      const element = box.current;
      const start = open.at.current;
      if (!element || !start) return;
      let rect: DOMRect | undefined;
      try {
        const after = Editor.after(editor, start);
        rect = ReactEditor.toDOMRange(editor, { anchor: start, focus: after ?? start }).getBoundingClientRect();
      } catch {
        rect = window.getSelection()?.rangeCount ? window.getSelection()!.getRangeAt(0).getBoundingClientRect() : undefined;
      }
      if (!rect) return;
      const margin = 8;
      const viewport = { width: document.documentElement.clientWidth, height: window.visualViewport?.height ?? window.innerHeight };
      const { offsetWidth: width, offsetHeight: height } = element;
      const left = Math.max(margin, Math.min(rect.left, viewport.width - width - margin));
      const above = rect.top - height - 4;
      const top = rect.bottom + 4 + height > viewport.height - margin && above >= margin ? above : rect.bottom + 4;
      element.style.left = `${left}px`;
      element.style.top = `${top}px`;
    };
    place();
    window.addEventListener('scroll', place, true);
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place, true);
      window.removeEventListener('resize', place);
    };
  });

  // The editing area names the highlighted option for screen readers (the caret stays there).
  const activeId = active ? optionId(active) : undefined;
  useLayoutEffect(() => {
    let editable: HTMLElement | undefined;
    try {
      editable = ReactEditor.toDOMNode(editor, editor);
    } catch {
      return;
    }
    // A textbox takes aria-controls and aria-activedescendant (not aria-expanded, a combobox's).
    editable.setAttribute('aria-controls', `${id}-list`);
    if (activeId) editable.setAttribute('aria-activedescendant', activeId);
    else editable.removeAttribute('aria-activedescendant');
    return () => {
      editable.removeAttribute('aria-controls');
      editable.removeAttribute('aria-activedescendant');
    };
  }, [editor, id, activeId]);

  // A click elsewhere closes (the text typed stays).
  useEffect(() => {
    const onDown = (event: MouseEvent) => {
      if (!(event.target instanceof Node) || !box.current?.contains(event.target)) onClose();
    };
    document.addEventListener('mousedown', onDown, true);
    return () => document.removeEventListener('mousedown', onDown, true);
  }, [onClose]);

  if (closed) return null;
  const heading = creating !== undefined ? `Create “${creating}” as…` : query === '' ? 'Type a name to mention' : undefined;
  return createPortal(
    <div ref={box} className="mention-popover" data-testid="mention-picker" onMouseDown={(e) => e.preventDefault()}>
      {heading && <div className="mention-heading">{heading}</div>}
      <ul id={`${id}-list`} role="listbox" aria-label={creating !== undefined ? `Type of “${creating}”` : 'Things and arcs to mention'} aria-busy={!answered}>
        {items.map((item) => (
          <li key={item.key} id={optionId(item)} role="option" aria-selected={item === active} className={item.create ? 'create' : undefined} onClick={() => choose(item)}>
            <span className="name">{item.label}</span>
            {item.detail && <span className="muted"> {item.detail}</span>}
          </li>
        ))}
      </ul>
      {creating !== undefined && (
        <label className="mention-visibility">
          <input type="checkbox" checked={gmOnly} onChange={(e) => setGmOnly(e.target.checked)} aria-keyshortcuts="Alt+G" /> GM only <span className="muted">(Alt+G){gmOnly ? '' : ': players will see the name'}</span>
        </label>
      )}
      {query !== '' && answered && creating === undefined && results.length === 0 && <div className="muted mention-note">Nothing matches “{query}”.</div>}
      {create.isPending && <div className="muted mention-note">Creating…</div>}
      {create.isError && (
        <div role="alert" className="mention-error">
          Not created: {messageOf(create.error)}
        </div>
      )}
    </div>,
    document.body,
  );
}
