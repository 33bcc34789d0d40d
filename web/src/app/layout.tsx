import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { meQuery, useSignOut } from '../account/api';
import { ApiError, type Me } from '../api/client';
import { applyTheme, storedTheme, type Theme } from './theme';
import { UndoNotice } from '../ui/undo-notice';

/**
 * Pages for signed-in users: sends anyone else to sign in, then back here. The page is rendered
 * while the user is being asked for, so its data loads alongside rather than after.
 */
export function SignedIn() {
  const location = useLocation();
  const me = useQuery(meQuery);
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  }
  if (me.error) return <p className="error" role="alert">{me.error.message}</p>;
  return (
    <>
      {/* First in the tab order: after a delete the focus is on the page, and Tab reaches Undo at once. */}
      <UndoNotice />
      <TopBar me={me.data} />
      <Outlet />
    </>
  );
}

function TopBar({ me }: { me: Me | undefined }) {
  const navigate = useNavigate();
  const [theme, setTheme] = useState<Theme>(storedTheme());
  const signOutHere = useSignOut();
  const signOut = async () => {
    await signOutHere.mutateAsync('here');
    await navigate('/sign-in');
  };
  return (
    <header className="topbar">
      <Link to="/" className="brand">
        Loreforge
      </Link>
      <nav aria-label="Account">
        <label className="theme">
          <span className="visually-hidden">Theme</span>
          <select
            value={theme}
            onChange={(e) => {
              const next = e.target.value as Theme;
              setTheme(next);
              applyTheme(next);
            }}
          >
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <Link to="/account">{me ? me.name || me.email : 'Account'}</Link>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
    </header>
  );
}

export function NotFound() {
  return (
    <main className="narrow">
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to your campaigns</Link>
      </p>
    </main>
  );
}
