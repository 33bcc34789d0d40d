// The page a password reset link opens (`/reset-password#<token>`, printed by the administrator's
// `npm run cli -- user reset-password <email>`). The token travels in the fragment, so it never
// reaches a server log, and leaves the address bar at once.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field, formText } from '../ui/field';
import { useResetPassword } from './api';

/**
 * The link's token, as the address gave it on this load. Kept outside React's state on purpose: a render React
 * throws away (a suspended or interrupted one) must not take the token with it, which a state
 * initializer that also cleared the address did, leaving "This page needs the whole link".
 */
let tokenOfThisLoad = '';
function resetToken(): string {
  const inAddress = window.location.hash.slice(1);
  if (inAddress) tokenOfThisLoad = inAddress;
  return tokenOfThisLoad;
}

export function ResetPasswordPage() {
  const [token] = useState(resetToken);
  // The token leaves the address bar once the page is on screen (history and screenshots keep none).
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);
  const queryClient = useQueryClient();
  const reset = useResetPassword();
  const { error, isPending: busy, isSuccess: done } = reset;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    reset.mutate(
      { token, newPassword: formText(new FormData(event.currentTarget), 'newPassword') },
      // Every session ended, this browser's too.
      { onSuccess: () => queryClient.clear() },
    );
  };
  const gone = error instanceof ApiError && error.status === 410;
  const fieldError = error instanceof ApiError ? error.fieldMessage('newPassword') : undefined;
  return (
    <main className="narrow auth">
      <p className="brand">Loreforge</p>
      <h1>Set a new password</h1>
      {!token ? (
        <p>This page needs the whole link the administrator gave you.</p>
      ) : done ? (
        <p role="status">
          Your password is set, and you are signed out everywhere. <Link to="/sign-in">Sign in</Link> with the new one.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label="New password" name="newPassword" type="password" autoComplete="new-password" required error={fieldError} hint="At least 10 characters." />
          <ErrorMessage>
            {gone
              ? 'This link cannot be used: it has expired (links last one hour), was used already or was replaced by a newer one. Ask the administrator of this server for a new link.'
              : error && !fieldError
                ? messageOf(error)
                : undefined}
          </ErrorMessage>
          <button type="submit" className="primary" disabled={busy}>
            Set password
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Sign in</Link>
      </p>
    </main>
  );
}
