// The sidebar's things: the types with their counts (`thingCount`, in the caller's view: no list of
// every thing is read) and, under an opened type, its things a page at a time in the order chosen
// (by name or last changed first, kept for the tab). A campaign of thousands stays quick: search
// and the quick switcher find any record at once, and a type's page lists them all.
import { useState, type FormEvent } from 'react';
import { Link, NavLink } from 'react-router';
import { messageOf } from '../api/client';
import { ErrorMessage, Field } from '../ui/field';
import { GmOnlyBadge, useCampaignAccess } from '../campaigns/access';
import './types-nav.css';
import { thingOrder, useCreateThingType, useThingTypes, useTypeThingNames, type ThingOrder } from './api';

/** How many things an opened type lists at first, and adds with each "Show more". */
const SIDEBAR_PAGE = 25;
const ORDER_KEY = 'loreforge.sidebar-order';

function storedOrder(): ThingOrder {
  try {
    return thingOrder(sessionStorage.getItem(ORDER_KEY) ?? 'name');
  } catch {
    return 'name';
  }
}

export function TypesNav({ slug }: { slug: string }) {
  const types = useThingTypes(slug);
  const { canEdit } = useCampaignAccess();
  const [open, setOpen] = useState<Record<number, boolean>>({});
  const [order, setOrderState] = useState<ThingOrder>(storedOrder);
  const setOrder = (next: ThingOrder) => {
    setOrderState(next);
    try {
      sessionStorage.setItem(ORDER_KEY, next);
    } catch {
      // Kept for this page only.
    }
  };
  return (
    <nav aria-label="Things">
      <h2>Things</h2>
      {types.error && <ErrorMessage>{messageOf(types.error)}</ErrorMessage>}
      <ul className="tree">
        {types.data?.map((type) => {
          const expanded = open[type.id] ?? false;
          return (
            <li key={type.id}>
              <div className="tree-row">
                <button type="button" className="disclosure" aria-expanded={expanded} aria-label={`${expanded ? 'Hide' : 'Show'} ${type.name}`} onClick={() => setOpen({ ...open, [type.id]: !expanded })}>
                  {expanded ? '▾' : '▸'}
                </button>
                <NavLink to={`/campaigns/${slug}/types/${type.id}`}>{type.name}</NavLink>
                <span className="count" aria-label={`${type.thingCount} things`}>
                  {type.thingCount}
                </span>
              </div>
              {expanded && <TypeThings slug={slug} typeId={type.id} typeName={type.name} count={type.thingCount} order={order} setOrder={setOrder} />}
            </li>
          );
        })}
      </ul>
      {canEdit && <NewTypeForm slug={slug} />}
    </nav>
  );
}

/** The things of an opened type: SIDEBAR_PAGE at a time, "Show more" for the next ones, and the type's page for all of them. */
function TypeThings({ slug, typeId, typeName, count, order, setOrder }: { slug: string; typeId: number; typeName: string; count: number; order: ThingOrder; setOrder: (order: ThingOrder) => void }) {
  const pages = useTypeThingNames(slug, typeId, { order, pageSize: SIDEBAR_PAGE });
  const things = pages.data?.pages.flatMap((p) => p.things) ?? [];
  return (
    <div className="sidebar-things">
      {count > 1 && (
        <div className="sidebar-order">
          <select aria-label={`Sort ${typeName}`} value={order} onChange={(e) => setOrder(thingOrder(e.target.value))}>
            <option value="name">By name</option>
            <option value="updatedAt">Last changed first</option>
          </select>
        </div>
      )}
      <ul aria-busy={pages.isPending} aria-label={`${typeName}: things`}>
        {pages.error && (
          <li>
            <ErrorMessage>{messageOf(pages.error)}</ErrorMessage>
          </li>
        )}
        {things.map((thing) => (
          <li key={thing.id}>
            <NavLink to={`/campaigns/${slug}/things/${thing.slug}`}>{thing.name}</NavLink> <GmOnlyBadge visibility={thing.visibility} />
          </li>
        ))}
      </ul>
      {pages.hasNextPage && (
        <p className="sidebar-more">
          <button type="button" className="link-button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage} aria-label={`Show more ${typeName} (${things.length} of ${count} shown)`}>
            Show more
          </button>{' '}
          <Link to={`/campaigns/${slug}/types/${typeId}${order === 'name' ? '?sort=name' : ''}`}>
            All {count} {typeName}
          </Link>
        </p>
      )}
    </div>
  );
}

function NewTypeForm({ slug }: { slug: string }) {
  const create = useCreateThingType(slug);
  const [name, setName] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const submitted = name;
    try {
      await create.mutateAsync(submitted);
      // Emptied only if nothing else was typed meanwhile (the answer waits for the sidebar's refresh).
      setName((current) => (current === submitted ? '' : current));
    } catch {
      // Shown under the field (the mutation's error).
    }
  };
  return (
    <form className="inline-form small" onSubmit={(e) => void submit(e)}>
      <Field label="New type" value={name} onChange={(e) => setName(e.target.value)} placeholder="Factions" error={create.error ? messageOf(create.error) : undefined} />
      <button type="submit" disabled={name.trim() === '' || create.isPending}>
        Add type
      </button>
    </form>
  );
}
