import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { api, ApiError, call, messageOf, type ArcSummary } from '../api/client';
import { ErrorMessage, Field, formText } from '../ui/field';
import { FormDialog } from '../ui/form-dialog';
import { CampaignAccessProvider, GmOnlyBadge, useCampaignAccess, usePlayerView } from '../campaigns/access';
import { LazyQuickSwitcher } from '../search/lazy-quick-switcher';
import { useArcs } from '../arcs/api';
import { campaignKey, useCampaign, useCampaignSlug, useRefreshCampaign } from '../campaigns/api';
import { useThingTypes } from '../things/api';

/** The campaign's frame: a sidebar (types and their things, the arcs as a tree, search, new records) and the page. */
export function CampaignShell() {
  const slug = useCampaignSlug();
  const [viewingAsPlayer, setViewingAsPlayer] = usePlayerView(slug);
  const campaign = useCampaign(slug);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // On a phone, Escape closes the open menu and gives the focus back to its button (a dialog
  // opened from the menu closes by itself first).
  const escapeMenu = (event: KeyboardEvent) => {
    if (!menuOpen || event.key !== 'Escape' || (event.target as HTMLElement).closest('[role="dialog"]')) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };
  if (campaign.isPending) return <p className="loading">Loading…</p>;
  if (campaign.error) {
    return (
      <main className="narrow">
        <h1>{campaign.error instanceof ApiError && campaign.error.status === 404 ? 'Campaign not found' : 'The campaign could not be loaded'}</h1>
        <ErrorMessage>{messageOf(campaign.error)}</ErrorMessage>
        <Link to="/">Your campaigns</Link>
      </main>
    );
  }
  const role = campaign.data.data.role;
  return (
    <CampaignAccessProvider role={role} viewingAsPlayer={viewingAsPlayer} setViewingAsPlayer={setViewingAsPlayer}>
    <div className="shell">
      <button ref={menuButton} type="button" className="menu-button" onKeyDown={escapeMenu} aria-expanded={menuOpen} aria-controls="sidebar" onClick={() => setMenuOpen(!menuOpen)}>
        {menuOpen ? 'Close menu' : 'Menu'}
      </button>
      <aside id="sidebar" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Campaign" onKeyDown={escapeMenu} onClick={(e) => (e.target as HTMLElement).closest('a') && setMenuOpen(false)}>
        <Link to={`/campaigns/${slug}`} className="campaign-name">
          {campaign.data.data.name}
        </Link>
        <PlayerViewSwitch />
        <SearchBox slug={slug} />
        <LazyQuickSwitcher campaignSlug={slug} />
        {role !== 'player' && (
          <div className="new-buttons">
            <NewThingDialog slug={slug} defaultVisibility={campaign.data.data.defaultVisibility} />
            <NewArcDialog slug={slug} defaultVisibility={campaign.data.data.defaultVisibility} />
          </div>
        )}
        <TypesNav slug={slug} />
        <ArcsNav slug={slug} />
        <NavLink to={`/campaigns/${slug}/members`} className="members-link">
          Members
        </NavLink>
        <TrashLink slug={slug} />
      </aside>
      <div className="page">
        {viewingAsPlayer && (
          <p className="banner player-view" role="status">
            You are seeing the campaign as its players do: no GM-only records, no secret blocks, nothing to edit.
          </p>
        )}
        <Outlet />
      </div>
    </div>
    </CampaignAccessProvider>
  );
}

/** The campaign's trash, for those who may restore from it (a player would get 403). */
function TrashLink({ slug }: { slug: string }) {
  const { canEdit } = useCampaignAccess();
  if (!canEdit) return null;
  return (
    <NavLink to={`/campaigns/${slug}/trash`} className="trash-link">
      Trash
    </NavLink>
  );
}

/** For owners and game masters: see the campaign exactly as its players do. */
function PlayerViewSwitch() {
  const access = useCampaignAccess();
  if (!access.canViewAsPlayer) return null;
  return (
    <button type="button" className="player-view-switch" aria-pressed={access.viewingAsPlayer} onClick={() => access.setViewingAsPlayer(!access.viewingAsPlayer)}>
      View as player
    </button>
  );
}

function SearchBox({ slug }: { slug: string }) {
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  return (
    <form
      role="search"
      aria-label="Search the campaign"
      onSubmit={(e) => {
        e.preventDefault();
        if (q.trim() !== '') void navigate(`/campaigns/${slug}/search?q=${encodeURIComponent(q)}`);
      }}
    >
      <label className="visually-hidden" htmlFor="campaign-search">
        Search the campaign
      </label>
      <input id="campaign-search" type="search" placeholder="Search…" value={q} onChange={(e) => setQ(e.target.value)} />
    </form>
  );
}

/** How many things an opened type lists in the sidebar; its page lists them all. */
const SIDEBAR_THINGS = 50;

function TypesNav({ slug }: { slug: string }) {
  // Counts come with the types (`thingCount`, in the caller's view): no list of every thing is read.
  const types = useThingTypes(slug);
  const { canEdit } = useCampaignAccess();
  const [open, setOpen] = useState<Record<number, boolean>>({});
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
              {expanded && <TypeThings slug={slug} typeId={type.id} typeName={type.name} count={type.thingCount} />}
            </li>
          );
        })}
      </ul>
      {canEdit && <NewTypeForm slug={slug} />}
    </nav>
  );
}

/** The things of an opened type, by name: the first SIDEBAR_THINGS of them, and a link to the type's page when there are more. */
function TypeThings({ slug, typeId, typeName, count }: { slug: string; typeId: number; typeName: string; count: number }) {
  const things = useQuery({
    queryKey: [...campaignKey(slug), 'things', 'sidebar', typeId],
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug }, query: { typeId: String(typeId), sort: 'name', count: String(SIDEBAR_THINGS) } } })),
  });
  return (
    <ul aria-busy={things.isPending} aria-label={`${typeName}: things`}>
      {things.error && (
        <li>
          <ErrorMessage>{messageOf(things.error)}</ErrorMessage>
        </li>
      )}
      {things.data?.map((thing) => (
        <li key={thing.id}>
          <NavLink to={`/campaigns/${slug}/things/${thing.slug}`}>{thing.name}</NavLink> <GmOnlyBadge visibility={thing.visibility} />
        </li>
      ))}
      {things.data && count > things.data.length && (
        <li>
          <Link to={`/campaigns/${slug}/types/${typeId}`}>All {count} {typeName}…</Link>
        </li>
      )}
    </ul>
  );
}

function NewTypeForm({ slug }: { slug: string }) {
  const refresh = useRefreshCampaign(slug);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await call(api.POST('/api/campaigns/{campaignSlug}/thing-types', { params: { path: { campaignSlug: slug } }, body: { newThingType: { name } } }));
      setName('');
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="inline-form small" onSubmit={(e) => void submit(e)}>
      <Field label="New type" value={name} onChange={(e) => setName(e.target.value)} placeholder="Factions" error={error ? messageOf(error) : undefined} />
      <button type="submit" disabled={name.trim() === ''}>
        Add type
      </button>
    </form>
  );
}

function ArcsNav({ slug }: { slug: string }) {
  const arcs = useArcs(slug);
  const children = new Map<number | null, ArcSummary[]>();
  for (const arc of arcs.data ?? []) {
    const list = children.get(arc.parentArcId) ?? [];
    list.push(arc);
    children.set(arc.parentArcId, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.name.localeCompare(b.name));
  return (
    <nav aria-label="Arcs">
      <h2>Arcs</h2>
      {arcs.error && <ErrorMessage>{messageOf(arcs.error)}</ErrorMessage>}
      <ArcTree slug={slug} parent={null} childrenOf={children} />
    </nav>
  );
}

function ArcTree({ slug, parent, childrenOf }: { slug: string; parent: number | null; childrenOf: Map<number | null, ArcSummary[]> }) {
  const [collapsed, setCollapsed] = useState<Record<number, boolean>>({});
  const arcs = childrenOf.get(parent) ?? [];
  if (arcs.length === 0) return null;
  return (
    <ul className="tree">
      {arcs.map((arc) => {
        const hasChildren = (childrenOf.get(arc.id)?.length ?? 0) > 0;
        const isCollapsed = collapsed[arc.id] ?? false;
        return (
          <li key={arc.id}>
            <div className="tree-row">
              {hasChildren ? (
                <button type="button" className="disclosure" aria-expanded={!isCollapsed} aria-label={`${isCollapsed ? 'Show' : 'Hide'} arcs under ${arc.name}`} onClick={() => setCollapsed({ ...collapsed, [arc.id]: !isCollapsed })}>
                  {isCollapsed ? '▸' : '▾'}
                </button>
              ) : (
                <span className="disclosure-space" />
              )}
              <NavLink to={`/campaigns/${slug}/arcs/${arc.slug}`}>{arc.name}</NavLink> <GmOnlyBadge visibility={arc.visibility} />
            </div>
            {hasChildren && !isCollapsed && <ArcTree slug={slug} parent={arc.id} childrenOf={childrenOf} />}
          </li>
        );
      })}
    </ul>
  );
}

const fieldError = (error: unknown, field: string) => (error instanceof ApiError ? error.fieldMessage(field) : undefined);

/** The new-record dialogs' GM-only switch, starting at the campaign's `defaultVisibility` at each opening. */
function NewRecordGmOnly({ what, defaultVisibility }: { what: string; defaultVisibility: 'all' | 'gm' }) {
  return (
    <div className="field checkbox-field">
      <label>
        <input type="checkbox" name="gmOnly" defaultChecked={defaultVisibility === 'gm'} /> GM only
      </label>
      <p className="hint">Players never see a GM-only {what}: not in lists, search, links or mentions.</p>
    </div>
  );
}

const visibilityOf = (form: FormData): 'all' | 'gm' => (form.get('gmOnly') === 'on' ? 'gm' : 'all');

function NewThingDialog({ slug, defaultVisibility }: { slug: string; defaultVisibility: 'all' | 'gm' }) {
  const types = useThingTypes(slug);
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(slug);
  return (
    <FormDialog
      trigger={<button type="button">New thing</button>}
      title="New thing"
      submitLabel="Create"
      fields={['name']}
      onSubmit={async (form) => {
        const thing = await call(
          api.POST('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug } }, body: { newThing: { name: formText(form, 'name'), typeId: Number(form.get('typeId')), visibility: visibilityOf(form) } } }),
        );
        await refresh();
        await navigate(`/campaigns/${slug}/things/${thing.slug}`);
      }}
    >
      {(error) => (
        <>
          <Field label="Name" name="name" required autoFocus error={fieldError(error, 'name')} />
          <div className="field">
            <label htmlFor="new-thing-type">Type</label>
            <select id="new-thing-type" name="typeId">
              {types.data?.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
          <NewRecordGmOnly what="thing" defaultVisibility={defaultVisibility} />
        </>
      )}
    </FormDialog>
  );
}

function NewArcDialog({ slug, defaultVisibility }: { slug: string; defaultVisibility: 'all' | 'gm' }) {
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(slug);
  return (
    <FormDialog
      trigger={<button type="button">New arc</button>}
      title="New arc"
      submitLabel="Create"
      fields={['name']}
      onSubmit={async (form) => {
        const arc = await call(api.POST('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug } }, body: { newArc: { name: formText(form, 'name'), visibility: visibilityOf(form) } } }));
        await refresh();
        await navigate(`/campaigns/${slug}/arcs/${arc.slug}`);
      }}
    >
      {(error) => (
        <>
          <Field label="Name" name="name" required autoFocus error={fieldError(error, 'name')} />
          <NewRecordGmOnly what="arc" defaultVisibility={defaultVisibility} />
        </>
      )}
    </FormDialog>
  );
}
