import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { messageOf, type Arc } from '../api/client';
import { arcSource, deleteArc, useSetArcParent, type ArcPatch } from './api';
import { addThingToArc, removeThingFromArc } from '../things/api';
import { ErrorMessage } from '../ui/field';
import { isEmptyHtml, Rendered } from '../ui/rendered';
import { GmOnlyBadge, GmOnlyField, useCampaignAccess } from '../campaigns/access';
import { DeleteRecordButton, useCampaignAction, type UnsentEdits } from '../records/actions';
import { Backlinks } from '../records/backlinks';
import { ArcPicker, ThingPicker } from '../search/pickers';
import { useCampaignSlug } from '../campaigns/api';
import { readingOf, startRecordPage, takeEarly, useRendered } from '../records/api';
import { useRecordEditing } from '../records/record-editing';
import { useMarkPageDrawn } from '../ui/page-drawn';
import { AddressField, EmptyText, isEmptyText, RecordActions, RecordDetails, RecordError, RecordText, RecordTitle } from '../records/record-page';
import type { RecordState } from '../records/record-state';
import { EDITING_ATTRIBUTE } from '../records/use-record';
import { HistoryToggle } from '../history/history-toggle';
import { LabelsFields, PrintedStructure, PropertiesFields, StructureView, type StructurePatch } from '../records/properties/record-structure';

const NARRATIVE = [
  ['hook', 'Hook'],
  ['protagonist', 'Protagonist'],
  ['antagonist', 'Antagonist'],
  ['problem', 'Problem'],
  ['key', 'Key'],
  ['outcome', 'Outcome'],
  ['notes', 'Notes'],
] as const;


// Opened at this address (a first load): the arc's requests start now, beside the campaign's.
startRecordPage('arcs', (campaignSlug, recordSlug) => arcSource(campaignSlug, recordSlug).load());

export function ArcPage() {
  // Everything an arc page holds in its own state belongs to one arc: another arc starts afresh.
  const arcSlug = useParams().arcSlug!;
  return <ArcRecordPage key={arcSlug} arcSlug={arcSlug} />;
}

function ArcRecordPage({ arcSlug }: { arcSlug: string }) {
  const campaignSlug = useCampaignSlug();
  const source = arcSource(campaignSlug, arcSlug);
  const load = () => takeEarly(['record', 'arcs', campaignSlug, arcSlug], source.load).answer;
  const editing = useRecordEditing<Arc, ArcPatch>({ campaignSlug, kind: 'arc', recordSlug: arcSlug, save: source.save, load });
  const rendered = useRendered(campaignSlug, 'arcs', arcSlug);
  // The empty fields opened for writing on this visit: they stay open once emptied again.
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const { canEdit } = useCampaignAccess();
  useMarkPageDrawn(!editing.loading && !rendered.isPending);
  if (editing.loading) {
    if (editing.error) return <RecordError error={editing.error} what="arc" />;
    return <p className="loading">Loading…</p>;
  }
  const { record, state, generation, value, banner } = editing;
  const structure = { value: (field: keyof StructurePatch) => value(field), update: (patch: Partial<StructurePatch>) => state.update(patch), generation, problem: state.error?.problem };
  if (!canEdit) {
    const written = NARRATIVE.filter(([field]) => rendered.data && !isEmptyHtml(rendered.data[field]));
    return (
      <main className="record record-page reading" aria-labelledby="record-title">
        <div className="record-head">
          <p className="kind">Arc</p>
          <h1 id="record-title">{record.name}</h1>
          {record.parentArc && (
            <p>
              Inside: <Link to={`/campaigns/${campaignSlug}/arcs/${record.parentArc.slug}`}>{record.parentArc.name}</Link>
            </p>
          )}
        </div>
        <div className="record-side">
          <StructureView record={record} renderedProperties={rendered.data?.['properties']} />
        </div>
        <div className="record-main">
          {written.map(([field, label]) => (
            <section key={field} className="arc-field" aria-labelledby={`${field}-heading`}>
              <h2 id={`${field}-heading`}>{label}</h2>
              <div className="record-text">
                <Rendered html={rendered.data?.[field]} label={label} />
              </div>
            </section>
          ))}
          <ChildArcs campaignSlug={campaignSlug} arc={record} />
          <LinkedThings campaignSlug={campaignSlug} arc={record} />
          <Backlinks campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} />
        </div>
      </main>
    );
  }
  return (
    <main className="record record-page" aria-labelledby="record-title">
      <div className="record-head">
        <p className="kind">
          Arc <GmOnlyBadge visibility={String(value('visibility'))} />
        </p>
        <RecordTitle value={String(value('name'))} generation={generation} onName={(name) => state.update({ name })} error={state.error?.fieldMessage('name')} />
        {banner}
      </div>
      <div className="record-main">
        {NARRATIVE.map(([field, label]) => {
          const open = opened.has(field) || !isEmptyText(value(field));
          return (
            <section key={field} className={open ? 'arc-field record-text-field' : 'arc-field empty'} aria-labelledby={`${field}-heading`}>
              <h2 id={`${field}-heading`}>{label}</h2>
              {open ? (
                <RecordText edited={editing} field={field} label={label} campaignSlug={campaignSlug} rendered={rendered.data?.[field]} reading={readingOf(rendered)} focusOnOpen={opened.has(field)} deferEditor />
              ) : (
                <div className="record-text">
                  <EmptyText prompt={`Write the ${label.toLowerCase()}…`} onOpen={() => setOpened(new Set(opened).add(field))} />
                </div>
              )}
            </section>
          );
        })}
      </div>
      <div className="record-side">
        <PrintedStructure record={record} renderedProperties={rendered.data?.['properties']} />
        <LabelsFields campaignSlug={campaignSlug} edited={structure} />
        <PropertiesFields campaignSlug={campaignSlug} edited={structure} fields={[]} self={{ type: 'arc', id: record.id }} />
        <RecordDetails>
          <div {...{ [EDITING_ATTRIBUTE]: '' }}>
            <GmOnlyField key={`visibility-${generation}`} value={String(value('visibility'))} onChange={(next) => state.update({ visibility: next })} what="arc" />
          </div>
          <AddressField campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} state={state} />
        </RecordDetails>
      </div>
      <div className="record-rest">
        <ParentField campaignSlug={campaignSlug} arc={record} state={state} />
        <ChildArcs campaignSlug={campaignSlug} arc={record} />
        <LinkedThings campaignSlug={campaignSlug} arc={record} />
        <Backlinks campaignSlug={campaignSlug} kind="arcs" slug={arcSlug} />
        <RecordActions>
          <HistoryToggle record={{ kind: 'arc', campaignSlug, recordSlug: arcSlug }} state={state} richFields={NARRATIVE} />
          <DeleteArc campaignSlug={campaignSlug} arc={record} state={state} />
        </RecordActions>
      </div>
    </main>
  );
}

function ChildArcs({ campaignSlug, arc }: { campaignSlug: string; arc: Arc }) {
  const { canEdit } = useCampaignAccess();
  // A reader is shown no empty section.
  if (!canEdit && arc.childArcs.length === 0) return null;
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
  const move = useSetArcParent(campaignSlug, arc.slug, state);
  // The failure (the server's cycle error among them) is shown from the mutation's state.
  const setParent = (parentArcId: number | null) => move.mutateAsync(parentArcId).catch(() => undefined);
  return (
    <div className="field parent-field">
      <p>
        Inside: {arc.parentArc ? <Link to={`/campaigns/${campaignSlug}/arcs/${arc.parentArc.slug}`}>{arc.parentArc.name}</Link> : <span className="muted">nothing (a top-level arc)</span>}{' '}
        {arc.parentArc && (
          <button type="button" onClick={() => void setParent(null)}>
            Make top-level
          </button>
        )}
      </p>
      <ArcPicker campaignSlug={campaignSlug} label="Move inside another arc" exclude={arc.id} onPick={(parent) => void setParent(parent.id)} />
      <ErrorMessage>{move.error ? messageOf(move.error) : undefined}</ErrorMessage>
    </div>
  );
}

function LinkedThings({ campaignSlug, arc }: { campaignSlug: string; arc: Arc }) {
  const { error, act } = useCampaignAction(campaignSlug);
  const { canEdit } = useCampaignAccess();
  const linked = new Set(arc.things.map((t) => t.id));
  if (!canEdit && arc.things.length === 0) return null;
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
              onClick={() => void act(() => removeThingFromArc(campaignSlug, thing.slug, arc.slug))}
            >
              Remove
            </button>}
          </li>
        ))}
      </ul>
      {/* Found by search as it is typed: the page never reads every thing of the campaign. */}
      {canEdit && <ThingPicker campaignSlug={campaignSlug} label="Add a thing" exclude={(id) => linked.has(id)} onPick={(thing) => void act(() => addThingToArc(campaignSlug, thing.slug, arc.slug))} />}
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
      remove={() => deleteArc(campaignSlug, arc.slug)}
    >
      <p>
        {arc.name} goes to the campaign’s trash with its links to things.
        {children > 0 && (children === 1 ? ' The arc inside it becomes a top-level arc (restoring it puts it back under it).' : ` The ${children} arcs inside it become top-level arcs (restoring it puts them back under it).`)} Undo brings it back, and so does the trash.
      </p>
    </DeleteRecordButton>
  );
}
