import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { GmOnlyBadge, useCampaignAccess } from '../campaigns/access';
import { useRestoreFromTrash } from '../records/actions';
import { showUndo } from '../ui/undo-notice';
import { ErrorMessage } from '../ui/field';
import { useCampaignSlug, useRefreshCampaign } from '../campaigns/api';
import { deleteThingType, thingOrder, useUpdateThingType, useThingTypes, useTypeThings } from './api';
import { TagFilter, tagsInAddress, TypeFieldsEditor } from './type-fields';

/** Things per page of the list; "Show more" adds the next page under them. */
const PAGE = 100;

export function ThingTypePage() {
  // The rename form's text and everything else held here belong to one type: another starts afresh.
  const typeId = Number(useParams().thingTypeId);
  return <ThingTypeRecordPage key={typeId} typeId={typeId} />;
}

function ThingTypeRecordPage({ typeId }: { typeId: number }) {
  const campaignSlug = useCampaignSlug();
  const types = useThingTypes(campaignSlug);
  const type = types.data?.find((t) => t.id === typeId);
  const { canEdit } = useCampaignAccess();
  // The filter and the order live in the address (?tag=…&tag=…&sort=name): a reload or a shared link keeps them.
  const [params, setParams] = useSearchParams();
  const tags = params.getAll('tag');
  const sort = thingOrder(params.get('sort'));
  const pages = useTypeThings(campaignSlug, typeId, { order: sort, pageSize: PAGE, tags });
  if (types.isSuccess && !type) return <main className="record"><h1>This type does not exist (any more)</h1></main>;
  if (!type) return <p className="loading">Loading…</p>;
  const count = type.thingCount;
  const shown = pages.data?.pages.flatMap((p) => p.things) ?? [];
  const setView = (next: { tags?: string[]; sort?: string }) => {
    // From the address as it is now (see tagsInAddress): never from an older render's.
    const now = new URLSearchParams(window.location.search);
    const query = new URLSearchParams();
    for (const tag of next.tags ?? tagsInAddress()) query.append('tag', tag);
    const order = next.sort ?? (now.get('sort') === 'name' ? 'name' : 'updatedAt');
    if (order === 'name') query.set('sort', 'name');
    setParams(query, { replace: true });
  };
  return (
    <main className="record" aria-labelledby="type-title">
      <p className="kind">Thing type</p>
      <h1 id="type-title">{type.name}</h1>
      <p className="muted">
        {count} thing{count === 1 ? '' : 's'}
      </p>
      <div className="inline-form small list-controls">
        <TagFilter campaignSlug={campaignSlug} tags={tags} onChange={(next) => setView({ tags: next })} />
        <div className="field">
          <label htmlFor="type-sort">Order</label>
          <select id="type-sort" value={sort} onChange={(e) => setView({ sort: e.target.value })}>
            <option value="updatedAt">Last changed first</option>
            <option value="name">By name</option>
          </select>
        </div>
      </div>
      {pages.error && <ErrorMessage>{messageOf(pages.error)}</ErrorMessage>}
      <ul className="cards" aria-label={`${type.name}${tags.length > 0 ? ` tagged ${tags.join(', ')}` : ''}`}>
        {shown.map((t) => (
          <li key={t.id}>
            <Link to={`/campaigns/${campaignSlug}/things/${t.slug}`}>{t.name}</Link> <GmOnlyBadge visibility={t.visibility} />
            {t.tags.length > 0 && <span className="muted"> · {t.tags.join(', ')}</span>}
          </li>
        ))}
      </ul>
      {pages.data && shown.length === 0 && <p className="muted">{tags.length > 0 ? `No ${type.name} with ${tags.length === 1 ? 'this tag' : 'all these tags'}.` : `No ${type.name} yet.`}</p>}
      {shown.length > 0 && (
        <p className="muted" role="status">
          {tags.length > 0 || pages.hasNextPage === false ? `${shown.length} shown` : `${shown.length} of ${count} shown`}
        </p>
      )}
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          Show {PAGE} more
        </button>
      )}
      {/* The list first (what a game master comes for), the type's own settings after it. */}
      {canEdit && (
        <section aria-labelledby="type-settings-heading" className="type-settings">
          <h2 id="type-settings-heading">Type settings</h2>
          <RenameType campaignSlug={campaignSlug} typeId={typeId} name={type.name} />
          <TypeFieldsEditor key={JSON.stringify(type.fields)} campaignSlug={campaignSlug} typeId={typeId} fields={type.fields} />
          <DeleteType campaignSlug={campaignSlug} typeId={typeId} name={type.name} count={count} />
        </section>
      )}
    </main>
  );
}

function RenameType({ campaignSlug, typeId, name }: { campaignSlug: string; typeId: number; name: string }) {
  const rename = useUpdateThingType(campaignSlug, typeId);
  const [value, setValue] = useState(name);
  const error = rename.error ? messageOf(rename.error) : undefined;
  return (
    <form
      className="inline-form small"
      onSubmit={(e) => {
        e.preventDefault();
        rename.mutate({ name: value });
      }}
    >
      <div className="field">
        <label htmlFor="type-name">Type name</label>
        <input id="type-name" value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={error ? true : undefined} />
      </div>
      <button type="submit" disabled={value === name || value.trim() === '' || rename.isPending}>
        Rename
      </button>
      <ErrorMessage>{error}</ErrorMessage>
    </form>
  );
}

function DeleteType({ campaignSlug, typeId, name, count }: { campaignSlug: string; typeId: number; name: string; count: number }) {
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  const restore = useRestoreFromTrash(campaignSlug);
  const things = `${count} thing${count === 1 ? '' : 's'}`;
  return (
    <ConfirmButton
      label="Delete type"
      title={`Delete the type ${name}?`}
      confirmLabel={count === 0 ? 'Delete' : `Delete it and its ${things}`}
      onConfirm={async () => {
        await deleteThingType(campaignSlug, typeId);
        await navigate(`/campaigns/${campaignSlug}`, { replace: true });
        showUndo(count === 0 ? `Type “${name}” moved to the trash.` : `Type “${name}” and its ${things} moved to the trash.`, () => restore('thing-type', typeId));
        await refresh();
      }}
    >
      <p>
        {count === 0
          ? `No thing is of type ${name}. The type goes to the campaign’s trash.`
          : `Its ${things} go${count === 1 ? 'es' : ''} to the campaign’s trash with it, with their links to arcs, and come back with it when it is restored.`}{' '}
        Undo brings {count === 0 ? 'it' : 'them'} back, and so does the trash.
      </p>
    </ConfirmButton>
  );
}
