// The account page's security sections: change the password, sign out everywhere, delete the
// account (CONTRACT "# Phase 3" › "Accounts").
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { Modal, useDialogTrigger } from '../ui/dialog';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage, Field, formText } from '../ui/field';
import { useChangePassword, useDeleteAccount, useSignOut } from './api';

export function ChangePassword() {
  const change = useChangePassword();
  const { error, isSuccess: done, isPending: busy } = change;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    change.mutate({ currentPassword: formText(data, 'currentPassword'), newPassword: formText(data, 'newPassword') }, { onSuccess: () => form.reset() });
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldMessage(field) : undefined);
  const general = error && !fieldError('currentPassword') && !fieldError('newPassword') ? messageOf(error) : undefined;
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit} noValidate>
        <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" required error={fieldError('currentPassword')} />
        <Field label="New password" name="newPassword" type="password" autoComplete="new-password" required error={fieldError('newPassword')} hint="At least 10 characters." />
        <ErrorMessage>{general}</ErrorMessage>
        {done && <p role="status">Your password is changed. Every other device where you were signed in is signed out.</p>}
        <button type="submit" disabled={busy}>
          Change password
        </button>
      </form>
    </section>
  );
}

export function SignOutEverywhere() {
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Devices</h2>
      <p className="muted">Signed in somewhere you no longer use? Sign out on every device and browser, this one included. API tokens keep working until you revoke them.</p>
      <ConfirmButton
        label="Sign out everywhere"
        title="Sign out on every device?"
        confirmLabel="Sign out everywhere"
        onConfirm={async () => {
          await signOut.mutateAsync('everywhere');
          await navigate('/sign-in');
        }}
      >
        <p>You will need your password to sign in again, here and everywhere else.</p>
      </ConfirmButton>
    </section>
  );
}

/** The campaigns a 409 owner_of_shared_campaign names: `/campaigns/<slug>` paths, names as messages. */
function sharedCampaigns(error: unknown): { slug: string; name: string }[] {
  if (!(error instanceof ApiError) || error.code !== 'owner_of_shared_campaign') return [];
  return (error.problem?.errors ?? []).map((e) => ({ slug: e.path.replace(/^\/campaigns\//, ''), name: e.message }));
}

export function DeleteAccount() {
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const remove = useDeleteAccount();
  const { error, isPending: busy } = remove;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    remove.mutate(formText(new FormData(event.currentTarget), 'password'), { onSuccess: () => void navigate('/sign-up', { replace: true }) });
  };
  const change = (next: boolean) => {
    setOpen(next);
    if (!next) remove.reset();
  };
  const opener = useDialogTrigger(
    <button type="button" className="danger">
      Delete account…
    </button>,
    open,
    () => change(true),
  );
  const shared = sharedCampaigns(error);
  const passwordError = error instanceof ApiError ? error.fieldMessage('password') : undefined;
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete your account</h2>
      <p className="muted">
        Your account goes for good, with the campaigns you own alone and everything in them, images included. There is no trash to bring them back from: export them first if you may want them. Campaigns you share with others must be handed to another member first.
      </p>
      {opener.element}
      {open && (
        <Modal open onOpenChange={change} title="Delete your account?" description={<p>This cannot be undone. Enter your password to confirm.</p>} returnFocusTo={opener.id}>
          <form onSubmit={submit} noValidate>
            <Field label="Password" name="password" type="password" autoComplete="current-password" required error={passwordError} />
            {shared.length > 0 ? (
              <div role="alert">
                <p className="error">You own campaigns that others share. Transfer each to another member on its Members page first:</p>
                <ul>
                  {shared.map((c) => (
                    <li key={c.slug}>
                      <Link to={`/campaigns/${c.slug}/members`}>{c.name}</Link>
                    </li>
                  ))}
                </ul>
              </div>
            ) : (
              <ErrorMessage>{error && !passwordError ? messageOf(error) : undefined}</ErrorMessage>
            )}
            <div className="actions">
              <button type="button" onClick={() => change(false)}>
                Cancel
              </button>
              <button type="submit" className="danger" disabled={busy}>
                Delete my account
              </button>
            </div>
          </form>
        </Modal>
      )}
    </section>
  );
}
