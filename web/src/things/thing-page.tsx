import { Link, useParams } from 'react-router';
import type { Thing } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { isEmptyHtml, Rendered } from '../ui/rendered';
import { GmOnlyBadge, GmOnlyField, useCampaignAccess } from '../campaigns/access';
import { DeleteRecordButton, useCampaignAction, type UnsentEdits } from '../records/actions';
import { ArcPicker } from '../search/pickers';
import { Backlinks } from '../records/backlinks';
import { useCampaignSlug } from '../campaigns/api';
import { readingOf, startRecordPage, takeEarly, useRendered } from '../records/api';
import { addThingToArc, deleteThing, removeThingFromArc, thingSource, useThingArcs, useThingTypes, type ThingPatch } from './api';
import { useRecordEditing } from '../records/record-editing';
import { useMarkPageDrawn } from '../ui/page-drawn';
import { AddressField, RecordActions, RecordDetails, RecordError, RecordText, RecordTitle } from '../records/record-page';
import { EDITING_ATTRIBUTE } from '../records/use-record';
import { HistoryToggle } from '../history/history-toggle';
import { LabelsFields, PrintedStructure, PropertiesFields, StructureView, type StructurePatch } from '../records/properties/record-structure';

const THING_RICH_FIELDS = [['description', 'Description']] as const;


// Opened at this address (a first load): the thing's requests start now, beside the campaign's.
startRecordPage('things', (campaignSlug, recordSlug) => thingSource(campaignSlug, recordSlug).load());

export function ThingPage() {
  // Everything a thing page holds in its own state belongs to one thing: another thing starts afresh.
  const thingSlug = useParams().thingSlug!;
  return <ThingRecordPage key={thingSlug} thingSlug={thingSlug} />;
}

function ThingRecordPage({ thingSlug }: { thingSlug: string }) {
  const campaignSlug = useCampaignSlug();
  const source = thingSource(campaignSlug, thingSlug);
  const load = () => takeEarly(['record', 'things', campaignSlug, thingSlug], source.load).answer;
  const editing = useRecordEditing<Thing, ThingPatch>({ campaignSlug, kind: 'thing', recordSlug: thingSlug, save: source.save, load });
  const rendered = useRendered(campaignSlug, 'things', thingSlug);
  const types = useThingTypes(campaignSlug);
  const { canEdit } = useCampaignAccess();
  useMarkPageDrawn(!editing.loading && !rendered.isPending);

  // The text (its rendering stands in for the editor) comes before what follows it: shown together, nothing is pushed down.
  if (editing.loading || rendered.isPending) {
    if (editing.error) return <RecordError error={editing.error} what="thing" />;
    return <p className="loading">Loading…</p>;
  }
  const { record, state, generation, value, banner } = editing;
  const typeName = types.data?.find((t) => t.id === record.typeId)?.name;
  // The fields of the type chosen now (an unsent change of type included).
  const fields = types.data?.find((t) => t.id === Number(value('typeId')))?.fields ?? [];
  const structure = { value: (field: keyof StructurePatch) => value(field), update: (patch: Partial<StructurePatch>) => state.update(patch), generation, problem: state.error?.problem };
  if (!canEdit) {
    const description = rendered.data?.description;
    return (
      <main className="record record-page reading" aria-labelledby="record-title">
        <div className="record-head">
          <p className="kind">{typeName ?? 'Thing'}</p>
          <h1 id="record-title">{record.name}</h1>
        </div>
        <div className="record-side">
          <StructureView record={record} renderedProperties={rendered.data?.['properties']} />
        </div>
        <div className="record-main">
          {!isEmptyHtml(description) && (
            <section aria-label="Description" className="record-text">
              <Rendered html={description} label="Description" />
            </section>
          )}
          <ThingArcs campaignSlug={campaignSlug} thingSlug={thingSlug} />
          <Backlinks campaignSlug={campaignSlug} kind="things" slug={thingSlug} />
        </div>
      </main>
    );
  }
  return (
    <main className="record record-page" aria-labelledby="record-title">
      <div className="record-head">
        <p className="kind">
          {typeName ?? 'Thing'} <GmOnlyBadge visibility={String(value('visibility'))} />
        </p>
        <RecordTitle value={String(value('name'))} generation={generation} onName={(name) => state.update({ name })} error={state.error?.fieldMessage('name')} />
        {banner}
      </div>
      <div className="record-main">
        <section aria-label="Description">
          <RecordText edited={editing} field="description" label="Description" campaignSlug={campaignSlug} rendered={rendered.data?.description} reading={readingOf(rendered)} deferEditor />
        </section>
      </div>
      <div className="record-side">
        <PrintedStructure record={record} renderedProperties={rendered.data?.['properties']} />
        <LabelsFields campaignSlug={campaignSlug} edited={structure} />
        <PropertiesFields campaignSlug={campaignSlug} edited={structure} fields={fields} self={{ type: 'thing', id: record.id }} />
        {/* Only the fields that show the server's version remount when the page takes a newer one: the
            address keeps what is being typed into it. */}
        <RecordDetails>
          <div className="field" {...{ [EDITING_ATTRIBUTE]: '' }}>
            <label htmlFor="thing-type">Type</label>
            <select key={`type-${generation}`} id="thing-type" defaultValue={String(value('typeId'))} onChange={(e) => state.update({ typeId: Number(e.target.value) })}>
              {types.data?.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
          <div {...{ [EDITING_ATTRIBUTE]: '' }}>
            <GmOnlyField key={`visibility-${generation}`} value={String(value('visibility'))} onChange={(next) => state.update({ visibility: next })} what="thing" />
          </div>
          <AddressField campaignSlug={campaignSlug} kind="things" slug={thingSlug} state={state} />
        </RecordDetails>
      </div>
      <div className="record-rest">
        <ThingArcs campaignSlug={campaignSlug} thingSlug={thingSlug} />
        <Backlinks campaignSlug={campaignSlug} kind="things" slug={thingSlug} />
        <RecordActions>
          <HistoryToggle record={{ kind: 'thing', campaignSlug, recordSlug: thingSlug }} state={state} richFields={THING_RICH_FIELDS} />
          <DeleteThing campaignSlug={campaignSlug} thing={record} state={state} />
        </RecordActions>
      </div>
    </main>
  );
}

function ThingArcs({ campaignSlug, thingSlug }: { campaignSlug: string; thingSlug: string }) {
  const arcs = useThingArcs(campaignSlug, thingSlug);
  const { error, act } = useCampaignAction(campaignSlug);
  const { canEdit } = useCampaignAccess();
  // A reader is shown no empty section.
  if (!canEdit && !arcs.data?.length) return null;
  return (
    <section aria-labelledby="arcs-heading">
      <h2 id="arcs-heading">In arcs</h2>
      <ul>
        {arcs.data?.map((arc) => (
          <li key={arc.id}>
            <Link to={`/campaigns/${campaignSlug}/arcs/${arc.slug}`}>{arc.name}</Link>{' '}
            {canEdit && <button type="button" aria-label={`Remove from ${arc.name}`} onClick={() => void act(() => removeThingFromArc(campaignSlug, thingSlug, arc.slug))}>
              Remove
            </button>}
          </li>
        ))}
      </ul>
      {/* The line the answer takes, held while it comes: nothing below moves when it does. */}
      {arcs.isPending && <p className="muted">Loading…</p>}
      {arcs.data?.length === 0 && <p className="muted">Not in any arc yet.</p>}
      {canEdit && <ArcPicker campaignSlug={campaignSlug} label="Add to an arc" onPick={(arc) => void act(() => addThingToArc(campaignSlug, thingSlug, arc.slug))} />}
      <ErrorMessage>{error}</ErrorMessage>
    </section>
  );
}

function DeleteThing({ campaignSlug, thing, state }: { campaignSlug: string; thing: Thing; state: UnsentEdits }) {
  return (
    <DeleteRecordButton
      campaignSlug={campaignSlug}
      what="thing"
      kind="thing"
      id={thing.id}
      name={thing.name}
      state={state}
      remove={() => deleteThing(campaignSlug, thing)}
    >
      <p>{thing.name} goes to the campaign’s trash with its links to arcs; mentions of it show as missing until it is restored. Undo brings it back, and so does the trash.</p>
    </DeleteRecordButton>
  );
}
