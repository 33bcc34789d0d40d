// The page a password reset link opens (`/reset-password#<token>`, printed by the administrator's
// `npm run cli -- user reset-password <email>`). The token travels in the fragment, so it never
// reaches a server log, and leaves the address bar at once.
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field, formText } from '../ui/field';
import { useResetPassword } from './api';

function resetToken(): string {
  const token = window.location.hash.slice(1);
  if (token) window.history.replaceState(null, '', window.location.pathname);
  return token;
}

export function ResetPasswordPage() {
  const [token] = useState(resetToken);
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
