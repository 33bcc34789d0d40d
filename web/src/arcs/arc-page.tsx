import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, call, callWithEtag, messageOf, type Arc } from '../api/client';
import { ErrorMessage, NameField } from '../ui/field';
import { Rendered } from '../ui/rendered';
import { GmOnlyBadge, GmOnlyField, useCampaignAccess } from '../campaigns/access';
import { DeleteRecordButton, useCampaignAction, type UnsentEdits } from '../records/actions';
import { Backlinks } from '../records/backlinks';
import { ArcPicker, ThingPicker } from '../search/pickers';
import { useCampaignSlug } from '../campaigns/api';
import { linkThingToArc } from './api';
import { useRendered } from '../records/api';
import { RichField, useRecordEditing } from '../records/record-editing';
import type { RecordState } from '../records/record-state';
import { EDITING_ATTRIBUTE } from '../records/use-record';
import { HistoryToggle } from '../history/history-toggle';
import { LabelsFields, PropertiesFields, StructureView, type StructurePatch } from '../records/properties/record-structure';
import { RecordError, SlugField } from '../things/thing-page';

const NARRATIVE = [
  ['hook', 'Hook'],
  ['protagonist', 'Protagonist'],
  ['antagonist', 'Antagonist'],
  ['problem', 'Problem'],
  ['key', 'Key'],
  ['outcome', 'Outcome'],
  ['notes', 'Notes'],
] as const;

type ArcPatch = { name: string; visibility: 'all' | 'gm'; hook: unknown[]; protagonist: unknown[]; antagonist: unknown[]; problem: unknown[]; key: unknown[]; outcome: unknown[]; notes: unknown[] } & StructurePatch;

export function ArcPage() {
  // Everything an arc page holds in its own state belongs to one arc: another arc starts afresh.
  const arcSlug = useParams().arcSlug!;
  return <ArcRecordPage key={arcSlug} arcSlug={arcSlug} />;
}

function ArcRecordPage({ arcSlug }: { arcSlug: string }) {
  const campaignSlug = useCampaignSlug();
  const path = { campaignSlug, arcSlug };
  const editing = useRecordEditing<Arc, ArcPatch>({
    campaignSlug,
    kind: 'arc',
    recordSlug: arcSlug,
    load: () => callWithEtag(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path } })),
    save: (patch, ifMatch, init) => callWithEtag(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path, header: ifMatch ? { 'if-match': ifMatch } : {} }, body: { updatedArc: patch }, ...init })),
  });
  const rendered = useRendered(campaignSlug, 'arcs', arcSlug);
  const [editingField, setEditingField] = useState<string>();
  const { canEdit } = useCampaignAccess();
  if (editing.loading) {
    if (editing.error) return <RecordError error={editing.error} what="arc" />;
    return <p className="loading">Loading…</p>;
  }
  const { record, state, generation, value, banner } = editing;
  const structure = { value: (field: keyof StructurePatch) => value(field), update: (patch: Partial<StructurePatch>) => state.update(patch), generation, problem: state.error?.problem };
  if (!canEdit) {
    return (
      <main className="record" aria-labelledby="record-title">
        <p className="kind">Arc</p>
        <h1 id="record-title">{record.name}</h1>
        <StructureView record={record} renderedProperties={rendered.data?.['properties']} />
        {record.parentArc && (
          <p>
            Inside: <Link to={`/campaigns/${campaignSlug}/arcs/${record.parentArc.slug}`}>{record.parentArc.name}</Link>
          </p>
        )}
        {NARRATIVE.map(([field, label]) => (
          <section key={field} aria-labelledby={`${field}-heading`}>
            <h2 id={`${field}-heading`}>{label}</h2>
            <Rendered html={rendered.data?.[field]} label={label} />
          </section>
        ))}
        <ChildArcs campaignSlug={campaignSlug} arc={record} />
        <LinkedThings campaignSlug={campaignSlug} arc={record} />
        <Backlinks campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} />
      </main>
    );
  }
  return (
    <main className="record" aria-labelledby="record-title">
      <p className="kind">
        Arc <GmOnlyBadge visibility={String(value('visibility'))} />
      </p>
      <h1 id="record-title" className="visually-hidden">
        {String(value('name'))}
      </h1>
      {banner}
      {/* Only the fields that show the server's version remount when the page takes a newer one: the
          address and parent fields keep what is being typed into them. */}
      <div className="record-fields" {...{ [EDITING_ATTRIBUTE]: '' }}>
        <NameField key={`name-${generation}`} defaultValue={String(value('name'))} onName={(name) => state.update({ name })} error={state.error?.fieldMessage('name')} className="title-input" />
        <SlugField campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} state={state} />
        <ParentField campaignSlug={campaignSlug} arc={record} state={state} />
        <GmOnlyField key={`visibility-${generation}`} value={String(value('visibility'))} onChange={(next) => state.update({ visibility: next })} what="arc" />
      </div>
      <LabelsFields campaignSlug={campaignSlug} edited={structure} />
      <PropertiesFields campaignSlug={campaignSlug} edited={structure} fields={[]} self={{ type: 'arc', id: record.id }} />
      <HistoryToggle record={{ kind: 'arc', campaignSlug, recordSlug: arcSlug }} state={state} richFields={NARRATIVE} />
      {NARRATIVE.map(([field, label]) => (
        <section key={field} aria-labelledby={`${field}-heading`}>
          <div className="section-head">
            <h2 id={`${field}-heading`}>{label}</h2>
            <button
              type="button"
              aria-label={editingField === field ? `Done editing ${label}` : `Edit ${label}`}
              onClick={() => (editingField === field ? void state.flush().then(() => setEditingField(undefined)) : setEditingField(field))}
            >
              {editingField === field ? 'Done' : 'Edit'}
            </button>
          </div>
          {editingField === field ? (
            <RichField edited={editing} field={field} label={label} campaignSlug={campaignSlug} />
          ) : (
            <Rendered html={rendered.data?.[field]} label={label} />
          )}
        </section>
      ))}
      <ChildArcs campaignSlug={campaignSlug} arc={record} />
      <LinkedThings campaignSlug={campaignSlug} arc={record} />
      <Backlinks campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} />
      <DeleteArc campaignSlug={campaignSlug} arc={record} state={state} />
    </main>
  );
}

function ChildArcs({ campaignSlug, arc }: { campaignSlug: string; arc: Arc }) {
  return (
    <section aria-labelledby="children-heading">
      <h2 id="children-heading">Arcs inside it</h2>
      {arc.childArcs.length === 0 && <p className="muted">None.</p>}
      <ul>
        {arc.childArcs.map((child) => (
          <li key={child.id}>
            <Link to={`/campaigns/${campaignSlug}/arcs/${child.slug}`}>{child.name}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The parent arc, chosen by search; the server's cycle error is shown at the field. The answer is the arc's latest version. */
function ParentField({ campaignSlug, arc, state }: { campaignSlug: string; arc: Arc; state: RecordState<Arc, ArcPatch> }) {
  const [error, setError] = useState<string>();
  const setParent = async (parentArcId: number | null) => {
    setError(undefined);
    try {
      await state.flush();
      const etag = state.etag();
      const header = etag ? { 'if-match': etag } : {};
      state.acknowledge(await callWithEtag(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, arcSlug: arc.slug }, header }, body: { updatedArc: { parentArcId } } })));
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <div className="field">
      <p>
        Inside: {arc.parentArc ? <Link to={`/campaigns/${campaignSlug}/arcs/${arc.parentArc.slug}`}>{arc.parentArc.name}</Link> : <span className="muted">nothing (a top-level arc)</span>}{' '}
        {arc.parentArc && (
          <button type="button" onClick={() => void setParent(null)}>
            Make top-level
          </button>
        )}
      </p>
      <ArcPicker campaignSlug={campaignSlug} label="Move inside another arc" exclude={arc.id} onPick={(parent) => void setParent(parent.id)} />
      <ErrorMessage>{error}</ErrorMessage>
    </div>
  );
}

function LinkedThings({ campaignSlug, arc }: { campaignSlug: string; arc: Arc }) {
  const { error, act } = useCampaignAction(campaignSlug);
  const { canEdit } = useCampaignAccess();
  const linked = new Set(arc.things.map((t) => t.id));
  return (
    <section aria-labelledby="linked-heading">
      <h2 id="linked-heading">Things in this arc</h2>
      <ul>
        {arc.things.map((thing) => (
          <li key={thing.id}>
            <Link to={`/campaigns/${campaignSlug}/things/${thing.slug}`}>{thing.name}</Link> <GmOnlyBadge visibility={thing.visibility} />{' '}
            {canEdit && <button
              type="button"
              aria-label={`Remove ${thing.name} from this arc`}
              onClick={() => void act(() => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, thingSlug: thing.slug, arcSlug: arc.slug } } })))}
            >
              Remove
            </button>}
          </li>
        ))}
      </ul>
      {/* Found by search as it is typed: the page never reads every thing of the campaign. */}
      {canEdit && <ThingPicker campaignSlug={campaignSlug} label="Add a thing" exclude={(id) => linked.has(id)} onPick={(thing) => void act(() => linkThingToArc(campaignSlug, thing.slug, arc.slug))} />}
      <ErrorMessage>{error}</ErrorMessage>
    </section>
  );
}

function DeleteArc({ campaignSlug, arc, state }: { campaignSlug: string; arc: Arc; state: UnsentEdits }) {
  const children = arc.childArcs.length;
  return (
    <DeleteRecordButton
      campaignSlug={campaignSlug}
      what="arc"
      kind="arc"
      id={arc.id}
      name={arc.name}
      state={state}
      remove={() => call(api.DELETE('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, arcSlug: arc.slug } } }))}
    >
      <p>
        {arc.name} goes to the campaign’s trash with its links to things.
        {children > 0 && (children === 1 ? ' The arc inside it becomes a top-level arc (restoring it puts it back under it).' : ` The ${children} arcs inside it become top-level arcs (restoring it puts them back under it).`)} Undo brings it back, and so does the trash.
      </p>
    </DeleteRecordButton>
  );
}
