// The page an invitation link opens (`/join#<token>`): the token travels in the fragment, so it
// never reaches a server log. It shows what the invitation offers (campaign, inviter, role) before
// anything else, signed in or not; signed out, the token is kept for this tab while the user signs
// in or signs up, and the page comes back here.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { meQuery } from '../account/api';
import { invitationPreviewQuery, useAcceptInvitation } from './api';

const KEY = 'loreforge.invitation';

function invitationToken(): string | null {
  const fromHash = window.location.hash.slice(1);
  if (fromHash) {
    sessionStorage.setItem(KEY, fromHash);
    // Out of the address bar (and so out of the history and of anything copied from it).
    window.history.replaceState(null, '', window.location.pathname);
  }
  return sessionStorage.getItem(KEY);
}

const ROLE_NAMES = { gm: 'co-game master', player: 'player' } as const;

export function JoinPage() {
  const [token] = useState(invitationToken);
  const me = useQuery(meQuery);
  const preview = useQuery(invitationPreviewQuery(token));
  const navigate = useNavigate();
  const accept = useAcceptInvitation();
  const { error, isPending: busy } = accept;
  const signedOut = me.error instanceof ApiError && me.error.status === 401;
  if (!token) {
    return (
      <main className="narrow">
        <h1>No invitation here</h1>
        <p>Open the whole link you were sent.</p>
        <Link to="/">Your campaigns</Link>
      </main>
    );
  }
  const join = () =>
    accept.mutate(token, {
      onSuccess: (accepted) => {
        sessionStorage.removeItem(KEY);
        void navigate(`/campaigns/${accepted.campaign.slug}`, { replace: true });
      },
    });
  const unavailable = (e: unknown) => e instanceof ApiError && e.code === 'invitation_unavailable';
  const gone = unavailable(error) || unavailable(preview.error);
  const offer = preview.data;
  return (
    <main className="narrow">
      <p className="brand">Loreforge</p>
      <h1>You are invited to a campaign</h1>
      {preview.isPending && <p className="loading">Loading the invitation…</p>}
      {offer && (
        <dl className="facts invitation">
          <dt>Campaign</dt>
          <dd>{offer.campaignName}</dd>
          <dt>Invited by</dt>
          <dd>{offer.invitedBy}</dd>
          <dt>Role</dt>
          <dd>{ROLE_NAMES[offer.role]}</dd>
          <dt>Valid until</dt>
          <dd>{new Date(offer.expiresAt).toLocaleString()}</dd>
        </dl>
      )}
      {gone ? (
        <ErrorMessage>This invitation can no longer be used: it has expired, been used up or been revoked. Ask your game master for a new link.</ErrorMessage>
      ) : signedOut ? (
        <p>
          To join, <Link to="/sign-in?next=/join">sign in</Link> or <Link to="/sign-up?next=/join">create an account</Link>.
        </p>
      ) : (
        <>
          {me.data && <p>You will join as {me.data.name || me.data.email}.</p>}
          <button type="button" className="primary" disabled={busy || !me.data || !offer} onClick={join}>
            Join the campaign
          </button>
          <ErrorMessage>{error ? messageOf(error) : preview.error ? messageOf(preview.error) : undefined}</ErrorMessage>
        </>
      )}
      <p>
        <Link to="/">Your campaigns</Link>
      </p>
    </main>
  );
}
