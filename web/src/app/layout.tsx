import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { meQuery, useSignOut } from '../account/api';
import { ApiError, type Me } from '../api/client';
import { applyTheme, storedTheme, type Theme } from './theme';
import { UndoNotice } from '../ui/undo-notice';
import './frame.css';

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
      {/* First in the tab order while it shows: after a delete the focus is on the page, and Tab
          reaches Undo at once. Otherwise the skip link is first. */}
      <UndoNotice />
      <SkipLink />
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
        <Link to="/account" className="account-link">
          {me ? me.name || me.email : 'Account'}
        </Link>
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

/**
 * "Skip to content": the first stop of the tab order on every page (hidden until focused), moving
 * the focus to the page's main area, past the top bar and the campaign's sidebar.
 */
export function SkipLink() {
  return (
    <a
      href="#main"
      className="skip-link"
      onClick={(event) => {
        const main = document.querySelector('main');
        if (!main) return;
        event.preventDefault();
        // Focusable by script only (not a Tab stop of its own), then focused.
        if (!main.hasAttribute('tabindex')) main.tabIndex = -1;
        if (!main.id) main.id = 'main';
        main.focus();
      }}
    >
      Skip to content
    </a>
  );
}

/** A page whose code is on its way: its place, empty and busy (nothing moves when it arrives). */
export function PageLoading() {
  return <main className="page-loading" aria-busy="true" aria-label="Loading" />;
}
