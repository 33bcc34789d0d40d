// A record's History panel (loaded when first opened): its revisions, newest first, with author,
// time and name; the chosen one compared with the current text or with the revision before it;
// restore it (a new change, If-Match on the version shown), name it, or copy one of its blocks back
// into the current text through the record's editing state (saved like typing, unsent edits kept).
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { useArcs } from '../arcs/api';
import { campaignKey } from '../campaigns/api';
import { useAllThings, useThingTypes } from '../things/api';
import type { ServerVersion } from '../records/record-state';
import { When } from '../ui/when';
import { nameRevision, restoreRevision, revisionsKey, useRevision, useRevisions, type RecordRef, type RevisionSummary } from './api';
import { copyBackIndex, diffBlocks, insertBlock, withoutBlankDocument, type Block, type BlockChange } from './block-diff';
import { BlockDiff, type DiffLayout, type MentionName } from './diff-view';

/** What the panel needs of a record's editing state (records/record-state.ts). */
export interface HistoryRecordState {
  server: ServerVersion<Record<string, unknown>> | undefined;
  value(field: string): unknown;
  edit(patch: Record<string, unknown>): void;
  etag(): string | undefined;
  flush(): Promise<void>;
  replaced(answer: ServerVersion<Record<string, unknown>>): void;
  refresh(): void;
}

export interface HistoryPanelProps {
  record: RecordRef;
  state: HistoryRecordState;
  /** The record's rich-text fields and their labels, in page order. */
  richFields: readonly (readonly [string, string])[];
}

const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  slug: 'Address',
  typeId: 'Type',
  visibility: 'Visibility',
  parentArcId: 'Inside arc',
  parentArc: 'Inside arc',
  defaultVisibility: 'New records’ visibility',
  tags: 'Tags',
  aliases: 'Aliases',
  properties: 'Properties',
};

const isRichText = (value: unknown): value is Block[] => Array.isArray(value) && value.every((node) => typeof node === 'object' && node !== null && 'children' in node);

export default function HistoryPanel({ record, state, richFields }: HistoryPanelProps) {
  const revisions = useRevisions(record);
  const [chosen, setChosen] = useState<number>();
  const [layout, setLayout] = useState<DiffLayout>('inline');
  const list = revisions.data ?? [];
  const selectedIndex = chosen === undefined ? -1 : list.findIndex((r) => r.id === chosen);
  const selected = selectedIndex === -1 ? undefined : list[selectedIndex];
  const previous = selectedIndex === -1 ? undefined : list[selectedIndex + 1];
  return (
    <section id="history-panel" className="history-panel" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {revisions.isPending && <p className="loading">Loading…</p>}
      {revisions.error && <ErrorMessage>{messageOf(revisions.error)}</ErrorMessage>}
      {revisions.data?.length === 0 && <p className="muted">No revisions yet: every change from now on keeps one.</p>}
      <div className="history-layout">
        {list.length > 0 && (
          <ol className="revisions" aria-label="Revisions, newest first">
            {list.map((revision, i) => (
              <li key={revision.id}>
                <button type="button" aria-pressed={revision.id === chosen} onClick={() => setChosen(revision.id)}>
                  <RevisionLine revision={revision} latest={i === 0} />
                </button>
              </li>
            ))}
          </ol>
        )}
        {selected ? (
          <RevisionDetail key={selected.id} record={record} state={state} richFields={richFields} summary={selected} previous={previous} layout={layout} setLayout={setLayout} />
        ) : (
          list.length > 0 && <p className="muted revision-hint">Choose a revision to see what changed, restore it or copy part of it back.</p>
        )}
      </div>
    </section>
  );
}

function RevisionLine({ revision, latest }: { revision: RevisionSummary; latest: boolean }) {
  return (
    <>
      {revision.name && <span className="revision-name">{revision.name}</span>}
      <span className="revision-when">
        <When at={revision.createdAt} />
        {latest && <span className="muted"> · latest</span>}
      </span>
      <span className="muted revision-by">
        {revision.author ? revision.author.name : 'an import or the command line'}
        {revision.fields.length > 0 && ` · ${revision.fields.map((f) => (FIELD_LABELS[f] ?? f).toLowerCase()).join(', ')}`}
      </span>
    </>
  );
}

function useMentionName(campaignSlug: string): MentionName {
  const things = useAllThings(campaignSlug);
  const arcs = useArcs(campaignSlug);
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const t of things.data ?? []) names.set(`thing-${t.id}`, t.name);
    for (const a of arcs.data ?? []) names.set(`arc-${a.id}`, a.name);
    return (type, id) => names.get(`${type}-${id}`);
  }, [things.data, arcs.data]);
}

function RevisionDetail({
  record,
  state,
  richFields,
  summary,
  previous,
  layout,
  setLayout,
}: HistoryPanelProps & { summary: RevisionSummary; previous: RevisionSummary | undefined; layout: DiffLayout; setLayout: (layout: DiffLayout) => void }) {
  const [against, setAgainst] = useState<'current' | 'previous'>('current');
  const revision = useRevision(record, summary.id);
  const before = useRevision(record, against === 'previous' ? previous?.id : undefined);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const mentionName = useMentionName(record.campaignSlug);
  const formatValue = useValueFormatter(record.campaignSlug);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const groupName = useId();

  if (revision.isPending) return <p className="loading">Loading…</p>;
  if (revision.error) return <ErrorMessage>{messageOf(revision.error)}</ErrorMessage>;
  const snapshot = revision.data.record;
  const current = (field: string): unknown => state.value(field);
  // Older → newer: this revision → the current text, or the revision before → this one.
  const older = (field: string): unknown => (against === 'current' ? snapshot[field] : previous ? before.data?.record[field] : undefined);
  const newer = (field: string): unknown => (against === 'current' ? current(field) : snapshot[field]);
  const waiting = against === 'previous' && previous !== undefined && !before.data;
  const sides = against === 'current' ? (['This revision', 'The current text'] as const) : (['The revision before', 'This revision'] as const);

  const copyBack = (field: string, label: string, changes: BlockChange[], at: number) => {
    const change = changes[at];
    const block = change?.kind === 'removed' ? change.block : change?.kind === 'changed' ? change.before : undefined;
    if (!block) return;
    const text = current(field);
    const now = isRichText(text) ? text : [];
    state.edit({ [field]: insertBlock(now, copyBackIndex(changes, at, now), block) });
    setMessage(`Copied into ${label}; it is saved like typing.`);
  };

  const restore = async () => {
    setError(undefined);
    setMessage(undefined);
    try {
      await state.flush();
      const answer = await restoreRevision(record, summary.id, state.etag());
      state.replaced(answer);
      await queryClient.invalidateQueries({ queryKey: campaignKey(record.campaignSlug) });
      setMessage('Restored: the record has this revision’s text again, as a new change (the History keeps what it replaced).');
      const slug = answer.data.slug;
      if (typeof slug === 'string' && record.kind !== 'campaign' && slug !== record.recordSlug) await navigate(`/campaigns/${record.campaignSlug}/${record.kind}s/${slug}`, { replace: true });
      if (typeof slug === 'string' && record.kind === 'campaign' && slug !== record.campaignSlug) await navigate(`/campaigns/${slug}`, { replace: true });
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        setError('Someone changed this record meanwhile, so nothing was restored. It now shows their version: look at the difference again before restoring.');
        state.refresh();
      } else setError(`The revision could not be restored: ${messageOf(e)}`);
    }
  };

  // An arc's snapshot holds its parent twice (its id, and its name then): the id is compared.
  const plainFields = Object.keys(snapshot).filter((field) => !isRichText(snapshot[field]) && field !== 'id' && !(field === 'parentArc' && 'parentArcId' in snapshot));
  const changedPlain = plainFields.filter((field) => older(field) !== undefined && newer(field) !== undefined && formatValue(field, older(field)) !== formatValue(field, newer(field)));

  return (
    <div className="revision-detail">
      <h3>{summary.name ?? 'Unnamed revision'}</h3>
      <p className="muted revision-meta">
        Saved <When at={summary.createdAt} /> by {summary.author ? summary.author.name : 'an import or the command line'}
      </p>
      <fieldset className="compare">
        <legend>Compare</legend>
        <label>
          <input type="radio" name={groupName} checked={against === 'current'} onChange={() => setAgainst('current')} /> this revision with the current text
        </label>
        <label>
          <input type="radio" name={groupName} checked={against === 'previous'} onChange={() => setAgainst('previous')} /> the revision before with this one
        </label>
      </fieldset>
      <fieldset className="compare">
        <legend>Show the changes</legend>
        <label>
          <input type="radio" name={`${groupName}-layout`} checked={layout === 'inline'} onChange={() => setLayout('inline')} /> inline
        </label>
        <label>
          <input type="radio" name={`${groupName}-layout`} checked={layout === 'side-by-side'} onChange={() => setLayout('side-by-side')} /> side by side
        </label>
      </fieldset>
      <div className="revision-actions">
        <button type="button" className="primary" onClick={() => void restore()}>
          Restore this revision
        </button>
        <RevisionNameForm record={record} summary={summary} onDone={setMessage} onError={setError} />
      </div>
      <div role="status" className="history-status">
        {message && <p>{message}</p>}
      </div>
      <ErrorMessage>{error}</ErrorMessage>
      {waiting ? (
        <p className="loading">Loading…</p>
      ) : (
        <>
          <p className="muted diff-legend">
            {against === 'current' ? 'Removed: in this revision, not in the current text. Added: in the current text only.' : previous ? 'Removed: in the revision before, not in this one. Added: new in this one.' : 'The first revision: everything in it was added.'}
          </p>
          {changedPlain.length > 0 && (
            <dl className="facts field-changes">
              {changedPlain.map((field) => (
                <div key={field}>
                  <dt>{FIELD_LABELS[field] ?? field}</dt>
                  <dd>
                    <del>{formatValue(field, older(field))}</del> → <ins>{formatValue(field, newer(field))}</ins>
                  </dd>
                </div>
              ))}
            </dl>
          )}
          {richFields.map(([field, label]) => (
            <FieldDiff key={field} label={label} from={older(field)} to={newer(field)} mentionName={mentionName} layout={layout} sides={sides} onCopyBack={(changes, at) => copyBack(field, label, changes, at)} />
          ))}
        </>
      )}
    </div>
  );
}

/** One rich-text field's changes, computed again only when either side changes (not at every keystroke elsewhere). */
function FieldDiff({
  label,
  from,
  to,
  mentionName,
  layout,
  sides,
  onCopyBack,
}: {
  label: string;
  from: unknown;
  to: unknown;
  mentionName: MentionName;
  layout: DiffLayout;
  sides: readonly [string, string];
  onCopyBack: (changes: BlockChange[], at: number) => void;
}) {
  const changes = useMemo(() => diffBlocks(withoutBlankDocument(isRichText(from) ? from : []), withoutBlankDocument(isRichText(to) ? to : [])), [from, to]);
  const unchanged = changes.every((c) => c.kind === 'same');
  return (
    <section className="field-diff" aria-label={`${label}: changes`}>
      <h4>
        {label}
        {unchanged && <span className="muted"> (unchanged)</span>}
      </h4>
      {!unchanged && <BlockDiff changes={changes} mentionName={mentionName} copyLabel="Copy this block back" onCopyBack={(at) => onCopyBack(changes, at)} layout={layout} sides={sides} />}
    </section>
  );
}

function RevisionNameForm({ record, summary, onDone, onError }: { record: RecordRef; summary: RevisionSummary; onDone: (message: string) => void; onError: (message: string | undefined) => void }) {
  const [name, setName] = useState(summary.name ?? '');
  const queryClient = useQueryClient();
  const id = useId();
  const save = async (next: string | null) => {
    onError(undefined);
    try {
      await nameRevision(record, summary.id, next);
      await queryClient.invalidateQueries({ queryKey: revisionsKey(record) });
      onDone(next === null ? 'The name is removed: the revision may be thinned out in time.' : `Named “${next}”: this revision is kept for ever.`);
    } catch (e) {
      onError(e instanceof ApiError ? (e.fieldMessage('name') ?? e.message) : messageOf(e));
    }
  };
  return (
    <form
      className="inline-form small"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() !== '') void save(name.trim());
      }}
    >
      <div className="field">
        <label htmlFor={id}>Revision name</label>
        <input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="Before the heist" />
      </div>
      <button type="submit" disabled={name.trim() === '' || name.trim() === summary.name}>
        Name it
      </button>
      {summary.name && (
        <button type="button" onClick={() => void save(null).then(() => setName(''))}>
          Remove the name
        </button>
      )}
    </form>
  );
}

/** A plain field's value as a reader knows it: the type's name, "GM only", the parent arc's name. */
function useValueFormatter(campaignSlug: string): (field: string, value: unknown) => string {
  const types = useThingTypes(campaignSlug);
  const arcs = useArcs(campaignSlug);
  return (field, value) => {
    if (value === null || value === undefined) return field === 'parentArcId' ? 'none (top level)' : '—';
    if (field === 'typeId' && typeof value === 'number') return types.data?.find((t) => t.id === value)?.name ?? `type ${value}`;
    if (field === 'visibility' || field === 'defaultVisibility') return value === 'gm' ? 'GM only' : 'everyone';
    if (field === 'parentArcId' && typeof value === 'number') return arcs.data?.find((a) => a.id === value)?.name ?? `arc ${value}`;
    if (typeof value === 'object' && !Array.isArray(value) && typeof (value as { name?: unknown }).name === 'string') return (value as { name: string }).name;
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v !== null ? ((v as { key?: unknown }).key !== undefined ? `${String((v as { key: unknown }).key)}: ${JSON.stringify((v as { value?: unknown }).value)}` : JSON.stringify(v)) : String(v))).join(', ') || '—';
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
}

