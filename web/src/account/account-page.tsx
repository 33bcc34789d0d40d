import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage, Field } from '../ui/field';
import { ChangePassword, DeleteAccount, SignOutEverywhere } from './account-security';
import { tokensQuery, useCreateToken, useMe, useRevokeToken } from './api';

export function AccountPage() {
  const me = useMe();
  // The clock as the page opened (read once, not on every render).
  const [openedAt] = useState(() => Date.now());
  if (!me) return <p className="loading">Loading…</p>;
  return (
    <main className="narrow" aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{me.email}</dd>
        <dt>Name</dt>
        <dd>{me.name || '—'}</dd>
        <dt>Premium</dt>
        <dd>
          {me.premium
            ? me.premiumUntil && Date.parse(me.premiumUntil) > openedAt
              ? `Yes, until ${new Date(me.premiumUntil).toLocaleDateString()}`
              : 'Yes'
            : 'No: uploading images needs premium, which the administrator of this server grants; ask them. Images by address work for everyone.'}
        </dd>
      </dl>
      <ChangePassword />
      <SignOutEverywhere />
      <Tokens />
      <DeleteAccount />
    </main>
  );
}

function Tokens() {
  const tokens = useQuery(tokensQuery);
  const revoke = useRevokeToken();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string>();
  const [copied, setCopied] = useState(false);
  const create = useCreateToken();
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">For scripts and other apps: send one as “Authorization: Bearer …”.</p>
      {created && (
        <div className="banner" role="status">
          <p>Your new token, shown this once:</p>
          <code className="token">{created}</code>
          <button type="button" onClick={() => void navigator.clipboard.writeText(created).then(() => setCopied(true))}>
            {copied ? 'Copied' : 'Copy token'}
          </button>
        </div>
      )}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(name, {
            onSuccess: (token) => {
              setCreated(token.token);
              setCopied(false);
              setName('');
            },
          });
        }}
      >
        <Field label="Token name" value={name} onChange={(e) => setName(e.target.value)} placeholder="My script" />
        <button type="submit" disabled={name.trim() === '' || create.isPending}>
          Create token
        </button>
      </form>
      {create.error && <ErrorMessage>{messageOf(create.error)}</ErrorMessage>}
      <ul>
        {tokens.data?.map((t) => (
          <li key={t.id}>
            {t.name} <span className="muted">created {new Date(t.createdAt).toLocaleDateString()}{t.lastUsedAt ? `, last used ${new Date(t.lastUsedAt).toLocaleDateString()}` : ', never used'}</span>{' '}
            <ConfirmButton
              label={`Revoke ${t.name}`}
              title={`Revoke the token ${t.name}?`}
              confirmLabel="Revoke"
              onConfirm={async () => {
                await revoke.mutateAsync(t.id);
              }}
            >
              <p>Scripts using it stop working at once.</p>
            </ConfirmButton>
          </li>
        ))}
      </ul>
    </section>
  );
}
