import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { messageOf, type Campaign } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage } from '../ui/field';
import { isEmptyHtml, Rendered } from '../ui/rendered';
import { useArcs } from '../arcs/api';
import { readingOf, startCampaignHome, useRendered, type Reading } from '../records/api';
import { useRecentThings } from '../things/api';
import { campaignSource, deleteCampaign, recordKey, useCampaign, useCampaignSlug, useSaveCampaignSettings, type CampaignPatch } from './api';
import { useRecordEditing } from '../records/record-editing';
import { RecordActions, RecordText } from '../records/record-page';
import { existingRecordState } from '../records/record-state';
import { saveBeforeDelete } from '../records/actions';
import { GmOnlyBadge, useCampaignAccess } from './access';
import { restoreCampaignFromTrash, useRefreshCampaignLists } from '../history/trash-api';
import { showUndo } from '../ui/undo-notice';
import { HistoryToggle } from '../history/history-toggle';

// Opened at the home (a first load): its description's rendering is asked for now, beside the campaign.
startCampaignHome();

export function CampaignHome() {
  const slug = useCampaignSlug();
  const campaign = useCampaign(slug);
  const rendered = useRendered(slug, 'campaign');
  const arcs = useArcs(slug);
  const recent = useRecentThings(slug);
  const { canEdit, role } = useCampaignAccess();
  if (!campaign.data) return null;
  const c = campaign.data.data;
  // The title at once; the description and the recent things under it once both are in, so nothing below them moves (layout shift).
  if (rendered.isPending || recent.isPending) return <main className="record" aria-labelledby="campaign-title"><h1 id="campaign-title">{c.name}</h1></main>;
  return (
    <main className="record" aria-labelledby="campaign-title">
      <h1 id="campaign-title">{c.name}</h1>
      {canEdit ? (
        <CampaignDescription key={slug} slug={slug} rendered={rendered.data?.description} reading={readingOf(rendered)} />
      ) : (
        !isEmptyHtml(rendered.data?.description) && (
          <section aria-label="Campaign description" className="campaign-description">
            <Rendered html={rendered.data?.description} label="Campaign description" />
          </section>
        )
      )}
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recently updated things</h2>
        {recent.error && <ErrorMessage>{messageOf(recent.error)}</ErrorMessage>}
        {recent.data?.length === 0 && <p className="muted">{canEdit ? 'No things yet: “New thing” in the sidebar makes one.' : 'No things yet.'}</p>}
        <ul>
          {recent.data?.map((t) => (
            <li key={t.id}>
              <Link to={`/campaigns/${slug}/things/${t.slug}`}>{t.name}</Link> <GmOnlyBadge visibility={t.visibility} />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="top-arcs-heading">
        <h2 id="top-arcs-heading">Arcs</h2>
        <ul>
          {arcs.data
            ?.filter((a) => a.parentArcId === null)
            .map((a) => (
              <li key={a.id}>
                <Link to={`/campaigns/${slug}/arcs/${a.slug}`}>{a.name}</Link> <GmOnlyBadge visibility={a.visibility} />
              </li>
            ))}
        </ul>
      </section>
      {canEdit && <CampaignSettings slug={slug} id={c.id} name={c.name} owner={role === 'owner'} />}
    </main>
  );
}

const CAMPAIGN_RICH_FIELDS = [['description', 'Campaign description']] as const;

/** The campaign's description, edited where it is read and saved as the user types like every record's text (the campaign's one editing state). */
function CampaignDescription({ slug, rendered, reading }: { slug: string; rendered: string | undefined; reading: Reading | undefined }) {
  const editing = useRecordEditing<Campaign, CampaignPatch>({ campaignSlug: slug, kind: 'campaign', ...campaignSource(slug) });
  if (editing.loading) return null;
  const { state, banner } = editing;
  return (
    <section aria-label="Campaign description" className="campaign-description">
      {banner}
      <RecordText edited={editing} field="description" label="Campaign description" campaignSlug={slug} rendered={rendered} reading={reading} deferEditor />
      <RecordActions>
        <HistoryToggle record={{ kind: 'campaign', campaignSlug: slug, recordSlug: '' }} state={state} richFields={CAMPAIGN_RICH_FIELDS} />
      </RecordActions>
    </section>
  );
}

function CampaignSettings({ slug, id, name, owner }: { slug: string; id: number; name: string; owner: boolean }) {
  const navigate = useNavigate();
  const refreshLists = useRefreshCampaignLists();
  const [newName, setNewName] = useState(name);
  const [newSlug, setNewSlug] = useState(slug);
  const save = useSaveCampaignSettings(slug, (updated) => updated.slug !== slug && navigate(`/campaigns/${updated.slug}`, { replace: true }));
  return (
    <section aria-labelledby="settings-heading" className="settings">
      <h2 id="settings-heading">Campaign settings</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          // The failure is shown from the mutation's state.
          save.mutateAsync({ name: newName, ...(newSlug !== slug ? { slug: newSlug } : {}) }).catch(() => undefined);
        }}
      >
        <div className="field">
          <label htmlFor="campaign-name">Name</label>
          <input id="campaign-name" value={newName} onChange={(e) => setNewName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="campaign-slug">Address</label>
          <input id="campaign-slug" value={newSlug} onChange={(e) => setNewSlug(e.target.value)} />
        </div>
        <ErrorMessage>{save.error ? messageOf(save.error) : undefined}</ErrorMessage>
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
      </form>
      <div className="export-links">
        <h3 id="export-heading">Export</h3>
        <p className="muted">Everything in the campaign, GM-only records and secrets included, as a download.</p>
        <ul aria-labelledby="export-heading">
          <li>
            <a href={`/api/campaigns/${slug}/export?format=archive`} download>
              Archive (.zip: campaign.json and images)
            </a>
          </li>
          <li>
            <a href={`/api/campaigns/${slug}/export?format=json`} download>
              JSON document
            </a>
          </li>
          <li>
            <a href={`/api/campaigns/${slug}/export?format=markdown`} download>
              Markdown vault (.zip for Obsidian)
            </a>
          </li>
        </ul>
      </div>
      {owner && <ConfirmButton
        label="Delete campaign"
        title={`Delete ${name}?`}
        confirmLabel="Delete the campaign"
        onConfirm={async () => {
          // The description typed and not yet sent goes to the trash with the campaign, or nothing does.
          const description = existingRecordState(recordKey(slug, 'campaign'));
          if (description) await saveBeforeDelete(description, 'campaign');
          await deleteCampaign(slug);
          await navigate('/', { replace: true });
          await refreshLists();
          showUndo(`Campaign “${name}” moved to the trash.`, async () => {
            const answer = await restoreCampaignFromTrash(id);
            await refreshLists();
            await navigate(`/campaigns/${answer.slug ?? slug}`);
          });
        }}
      >
        <p>{name} goes to your trash with everything in it; no member can open it meanwhile. Undo brings it back, and so does “Deleted campaigns” on your campaigns page.</p>
      </ConfirmButton>}
    </section>
  );
}
