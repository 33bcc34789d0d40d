import { useEffect, useRef, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field, formText } from '../ui/field';
import { useSignIn } from './api';

/** Where to go after signing in: the page that sent the user here, if it is one of ours. */
function useNext(): string {
  const [params] = useSearchParams();
  const next = params.get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function AuthForm({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const navigate = useNavigate();
  const next = useNext();
  const signIn = useSignIn();
  const { error, isPending: busy } = signIn;
  const form = useRef<HTMLFormElement>(null);
  // A refused form moves the focus to what to fix: the first field in error, else the form's error
  // (both are announced as they appear).
  useEffect(() => {
    if (!error || !form.current) return;
    const target = form.current.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form.current.querySelector<HTMLElement>('[role="alert"]');
    if (target && !target.matches('input')) target.tabIndex = -1;
    target?.focus();
  }, [error]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const answer = { mode, email: formText(form, 'email'), password: formText(form, 'password'), name: mode === 'sign-up' ? formText(form, 'name') || undefined : undefined };
    // A failure shows from the mutation's error; only a success moves on.
    if (await signIn.mutateAsync(answer).then(() => true, () => false)) await navigate(next, { replace: true });
  };
  const fieldError = (field: string) => (error instanceof ApiError ? error.fieldMessage(field) : undefined);
  const general = error && !fieldError('email') && !fieldError('password') && !fieldError('name') ? messageOf(error) : undefined;
  const title = mode === 'sign-up' ? 'Create your account' : 'Sign in';
  return (
    <main className="narrow auth">
      <p className="brand">Loreforge</p>
      <h1>{title}</h1>
      <form ref={form} onSubmit={(e) => void submit(e)} noValidate>
        {mode === 'sign-up' && <Field label="Name" name="name" autoComplete="name" error={fieldError('name')} />}
        <Field label="Email" name="email" type="email" autoComplete="email" required error={fieldError('email')} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete={mode === 'sign-up' ? 'new-password' : 'current-password'}
          required
          error={fieldError('password')}
          hint={mode === 'sign-up' ? 'At least 10 characters.' : undefined}
        />
        <ErrorMessage>{general}</ErrorMessage>
        <button type="submit" className="primary" disabled={busy}>
          {mode === 'sign-up' ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <p>
        {mode === 'sign-up' ? (
          <>
            Have an account? <Link to={`/sign-in?next=${encodeURIComponent(next)}`}>Sign in</Link>
          </>
        ) : (
          <>
            New here? <Link to={`/sign-up?next=${encodeURIComponent(next)}`}>Create an account</Link>
          </>
        )}
      </p>
    </main>
  );
}

export const SignInPage = () => <AuthForm mode="sign-in" />;
export const SignUpPage = () => <AuthForm mode="sign-up" />;
