import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field } from '../ui/field';
import { DeletedCampaigns } from '../history/deleted-campaigns';
import { campaignsQuery, useCreateCampaign } from './api';


export function CampaignsPage() {
  const campaigns = useQuery(campaignsQuery);
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const create = useCreateCampaign();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name, { onSuccess: (campaign) => void navigate(`/campaigns/${campaign.slug}`) });
  };
  const nameError = create.error instanceof ApiError ? create.error.fieldMessage('name') : undefined;
  return (
    <main className="narrow">
      <h1>Your campaigns</h1>
      {campaigns.isPending && <p className="loading">Loading…</p>}
      {campaigns.error && <ErrorMessage>{messageOf(campaigns.error)}</ErrorMessage>}
      {campaigns.data && campaigns.data.length === 0 && <p>No campaigns yet: start one below.</p>}
      {/* The list and what follows it come together: nothing is pushed down when the list arrives. */}
      {!campaigns.isPending && (
        <>
          <ul className="cards">
            {campaigns.data?.map((c) => (
              <li key={c.id}>
                <Link to={`/campaigns/${c.slug}`}>{c.name}</Link>
                <span className="muted">
                  {' '}
                  {c.role === 'owner' ? 'yours' : c.role === 'gm' ? 'game master' : 'player'} · updated {new Date(c.updatedAt).toLocaleDateString()}
                </span>
              </li>
            ))}
          </ul>
          <form onSubmit={submit} className="inline-form" aria-label="Start a campaign">
            <Field label="Campaign name" name="name" value={name} onChange={(e) => setName(e.target.value)} required error={nameError} placeholder="Lost Mine of Phandelver" />
            <button type="submit" className="primary" disabled={create.isPending || name.trim() === ''}>
              Create campaign
            </button>
          </form>
          {create.error && !nameError && <ErrorMessage>{messageOf(create.error)}</ErrorMessage>}
          <p>
            Or <Link to="/import">import a campaign</Link> from an export or a Markdown vault.
          </p>
          <DeletedCampaigns />
        </>
      )}
    </main>
  );
}
