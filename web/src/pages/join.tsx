// The page an invitation link opens (`/join#<token>`): the token travels in the fragment, so it
// never reaches a server log. Signed out, the token is kept for this tab while the user signs in or
// signs up, and the page comes back here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { ApiError, api, call, messageOf } from '../api/client';
import { ErrorMessage } from '../components/field';
import { meQuery } from './layout';

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

export function JoinPage() {
  const [token] = useState(invitationToken);
  const me = useQuery(meQuery);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to="/sign-in?next=/join" replace />;
  if (!token) {
    return (
      <main className="narrow">
        <h1>No invitation here</h1>
        <p>Open the whole link you were sent.</p>
        <Link to="/">Your campaigns</Link>
      </main>
    );
  }
  const join = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const accepted = await call(api.POST('/api/invitations/accept', { body: { token } }));
      sessionStorage.removeItem(KEY);
      await queryClient.invalidateQueries({ queryKey: ['campaigns'] });
      await navigate(`/campaigns/${accepted.campaign.slug}`, { replace: true });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const gone = error instanceof ApiError && error.code === 'invitation_unavailable';
  return (
    <main className="narrow">
      <p className="brand">Loreforge</p>
      <h1>You are invited to a campaign</h1>
      {me.data && <p>You will join as {me.data.name || me.data.email}.</p>}
      <button type="button" className="primary" disabled={busy || !me.data} onClick={() => void join()}>
        Join the campaign
      </button>
      <ErrorMessage>{gone ? 'This invitation can no longer be used: it has expired, been used up or been revoked. Ask your game master for a new link.' : error ? messageOf(error) : undefined}</ErrorMessage>
      <p>
        <Link to="/">Your campaigns</Link>
      </p>
    </main>
  );
}
