import { useRef, useState, type KeyboardEvent } from 'react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field, formText } from '../ui/field';
import { FormDialog } from '../ui/form-dialog';
import { CampaignAccessProvider, useCampaignAccess, usePlayerView } from '../campaigns/access';
import { LazyQuickSwitcher } from '../search/lazy-quick-switcher';
import { ArcsNav } from '../arcs/arcs-nav';
import { useCreateArc } from '../arcs/api';
import { RememberVisits } from '../search/recent-pages';
import { startCampaign, useCampaign, useCampaignSlug } from '../campaigns/api';
import { useCreateThing, useThingTypes } from '../things/api';
import { TypesNav } from '../things/types-nav';

// Opened at one of the campaign's pages (a first load): its read starts now, beside the page's.
startCampaign();

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
        <RememberVisits campaignSlug={slug} />
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
  const create = useCreateThing(slug);
  return (
    <FormDialog
      trigger={<button type="button">New thing</button>}
      title="New thing"
      submitLabel="Create"
      fields={['name']}
      // The new page's name (Enter there goes on to its text): the keyboard is on what was just made.
      focusAfterSubmit="h1#record-title textarea"
      onSubmit={async (form) => {
        const thing = await create.mutateAsync({ name: formText(form, 'name'), typeId: Number(form.get('typeId')), visibility: visibilityOf(form) });
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
  const create = useCreateArc(slug);
  return (
    <FormDialog
      trigger={<button type="button">New arc</button>}
      title="New arc"
      submitLabel="Create"
      fields={['name']}
      // The new page's name (Enter there goes on to its text): the keyboard is on what was just made.
      focusAfterSubmit="h1#record-title textarea"
      onSubmit={async (form) => {
        const arc = await create.mutateAsync({ name: formText(form, 'name'), visibility: visibilityOf(form) });
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
