import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, call, callWithEtag, messageOf, type Thing } from '../api/client';
import { ErrorMessage, Field, NameField } from '../ui/field';
import { Rendered } from '../ui/rendered';
import { GmOnlyBadge, GmOnlyField, useCampaignAccess } from '../campaigns/access';
import { DeleteRecordButton, useCampaignAction, type UnsentEdits } from '../records/actions';
import { ArcPicker } from '../search/pickers';
import { Backlinks } from '../records/backlinks';
import { useCampaignSlug, useRefreshCampaign } from '../campaigns/api';
import { useRendered } from '../records/api';
import { useThingTypes } from './api';
import { RichField, useRecordEditing } from '../records/record-editing';
import { EDITING_ATTRIBUTE } from '../records/use-record';
import { HistoryToggle } from '../history/history-toggle';
import { LabelsFields, PropertiesFields, StructureView, type StructurePatch } from '../records/properties/record-structure';

const THING_RICH_FIELDS = [['description', 'Description']] as const;

type ThingPatch = { name: string; typeId: number; description: unknown[]; visibility: 'all' | 'gm' } & StructurePatch;

export function ThingPage() {
  // Everything a thing page holds in its own state belongs to one thing: another thing starts afresh.
  const thingSlug = useParams().thingSlug!;
  return <ThingRecordPage key={thingSlug} thingSlug={thingSlug} />;
}

function ThingRecordPage({ thingSlug }: { thingSlug: string }) {
  const campaignSlug = useCampaignSlug();
  const path = { campaignSlug, thingSlug };
  const editing = useRecordEditing<Thing, ThingPatch>({
    campaignSlug,
    kind: 'thing',
    recordSlug: thingSlug,
    load: () => callWithEtag(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path } })),
    save: (patch, ifMatch, init) => callWithEtag(api.PUT('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path, header: ifMatch ? { 'if-match': ifMatch } : {} }, body: { updatedThing: patch }, ...init })),
  });
  const [editingText, setEditingText] = useState(false);
  const rendered = useRendered(campaignSlug, 'things', thingSlug);
  const types = useThingTypes(campaignSlug);
  const { canEdit } = useCampaignAccess();

  if (editing.loading) {
    if (editing.error) return <RecordError error={editing.error} what="thing" />;
    return <p className="loading">Loading…</p>;
  }
  const { record, state, generation, value, banner } = editing;
  const typeName = types.data?.find((t) => t.id === record.typeId)?.name;
  // The fields of the type chosen now (an unsent change of type included).
  const fields = types.data?.find((t) => t.id === Number(value('typeId')))?.fields ?? [];
  const structure = { value: (field: keyof StructurePatch) => value(field), update: (patch: Partial<StructurePatch>) => state.update(patch), generation, problem: state.error?.problem };
  if (!canEdit) {
    return (
      <main className="record" aria-labelledby="record-title">
        <p className="kind">{typeName ?? 'Thing'}</p>
        <h1 id="record-title">{record.name}</h1>
        <StructureView record={record} renderedProperties={rendered.data?.['properties']} />
        <section aria-labelledby="description-heading">
          <h2 id="description-heading">Description</h2>
          <Rendered html={rendered.data?.description} label="Description" />
        </section>
        <ThingArcs campaignSlug={campaignSlug} thingSlug={thingSlug} />
        <Backlinks campaignSlug={campaignSlug} kind="things" slug={thingSlug} />
      </main>
    );
  }
  return (
    <main className="record" aria-labelledby="record-title">
      <p className="kind">
        {typeName ?? 'Thing'} <GmOnlyBadge visibility={String(value('visibility'))} />
      </p>
      <h1 id="record-title" className="visually-hidden">
        {String(value('name'))}
      </h1>
      {banner}
      {/* Only the fields that show the server's version remount when the page takes a newer one: the
          address and parent fields keep what is being typed into them. */}
      <div className="record-fields" {...{ [EDITING_ATTRIBUTE]: '' }}>
        <NameField key={`name-${generation}`} defaultValue={String(value('name'))} onName={(name) => state.update({ name })} error={state.error?.fieldMessage('name')} className="title-input" />
        <div className="field">
          <label htmlFor="thing-type">Type</label>
          <select key={`type-${generation}`} id="thing-type" defaultValue={String(value('typeId'))} onChange={(e) => state.update({ typeId: Number(e.target.value) })}>
            {types.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <SlugField campaignSlug={campaignSlug} kind="things" slug={thingSlug} state={state} />
        <GmOnlyField key={`visibility-${generation}`} value={String(value('visibility'))} onChange={(next) => state.update({ visibility: next })} what="thing" />
      </div>
      <LabelsFields campaignSlug={campaignSlug} edited={structure} />
      <PropertiesFields campaignSlug={campaignSlug} edited={structure} fields={fields} self={{ type: 'thing', id: record.id }} />
      <HistoryToggle record={{ kind: 'thing', campaignSlug, recordSlug: thingSlug }} state={state} richFields={THING_RICH_FIELDS} />
      <section aria-labelledby="description-heading">
        <div className="section-head">
          <h2 id="description-heading">Description</h2>
          <button type="button" onClick={() => (editingText ? void state.flush().then(() => setEditingText(false)) : setEditingText(true))}>
            {editingText ? 'Done' : 'Edit description'}
          </button>
        </div>
        {editingText ? <RichField edited={editing} field="description" label="Description" campaignSlug={campaignSlug} /> : <Rendered html={rendered.data?.description} label="Description" />}
      </section>
      <ThingArcs campaignSlug={campaignSlug} thingSlug={thingSlug} />
      <Backlinks campaignSlug={campaignSlug} kind="things" slug={thingSlug} />
      <DeleteThing campaignSlug={campaignSlug} thing={record} state={state} />
    </main>
  );
}

export function RecordError({ error, what }: { error: unknown; what: string }) {
  return (
    <main className="record">
      <h1>{error instanceof ApiError && error.status === 404 ? `This ${what} does not exist (any more)` : `The ${what} could not be loaded`}</h1>
      <ErrorMessage>{messageOf(error)}</ErrorMessage>
    </main>
  );
}

/** The slug, changed on its own (a new URL): a taken or malformed slug is shown at the field. Unsent edits are saved first, at the old address. */
export function SlugField({ campaignSlug, kind, slug, state }: { campaignSlug: string; kind: 'things' | 'arcs'; slug: string; state: { flush: () => Promise<void>; etag: () => string | undefined } }) {
  const [value, setValue] = useState(slug);
  const [error, setError] = useState<string>();
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  const save = async () => {
    if (value === slug) return;
    setError(undefined);
    try {
      await state.flush();
      const etag = state.etag();
      const header = etag ? { 'if-match': etag } : {};
      const updated =
        kind === 'things'
          ? await call(api.PUT('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path: { campaignSlug, thingSlug: slug }, header }, body: { updatedThing: { slug: value } } }))
          : await call(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, arcSlug: slug }, header }, body: { updatedArc: { slug: value } } }));
      await refresh();
      await navigate(`/campaigns/${campaignSlug}/${kind}/${updated.slug}`, { replace: true });
    } catch (e) {
      setError(e instanceof ApiError ? (e.fieldMessage('slug') ?? e.message) : messageOf(e));
    }
  };
  return (
    <form
      className="inline-form small"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Field label="Slug (the address)" value={value} onChange={(e) => setValue(e.target.value)} error={error} />
      <button type="submit" disabled={value === slug}>
        Change slug
      </button>
    </form>
  );
}

function ThingArcs({ campaignSlug, thingSlug }: { campaignSlug: string; thingSlug: string }) {
  const arcs = useQuery({
    queryKey: ['campaign', campaignSlug, 'thing-arcs', thingSlug],
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug, thingSlug } } })),
  });
  const { error, act } = useCampaignAction(campaignSlug);
  const { canEdit } = useCampaignAccess();
  return (
    <section aria-labelledby="arcs-heading">
      <h2 id="arcs-heading">In arcs</h2>
      <ul>
        {arcs.data?.map((arc) => (
          <li key={arc.id}>
            <Link to={`/campaigns/${campaignSlug}/arcs/${arc.slug}`}>{arc.name}</Link>{' '}
            {canEdit && <button type="button" aria-label={`Remove from ${arc.name}`} onClick={() => void act(() => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug, thingSlug, arcSlug: arc.slug } } })))}>
              Remove
            </button>}
          </li>
        ))}
      </ul>
      {arcs.data?.length === 0 && <p className="muted">Not in any arc yet.</p>}
      {canEdit && <ArcPicker campaignSlug={campaignSlug} label="Add to an arc" onPick={(arc) => void act(() => call(api.POST('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug, thingSlug } }, body: { arcSlug: arc.slug } })))} />}
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
      remove={() => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path: { campaignSlug, thingSlug: thing.slug } } }))}
    >
      <p>{thing.name} goes to the campaign’s trash with its links to arcs; mentions of it show as missing until it is restored. Undo brings it back, and so does the trash.</p>
    </DeleteRecordButton>
  );
}
