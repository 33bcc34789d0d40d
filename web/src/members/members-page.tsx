// Sharing the campaign: its members and their roles, invitations (a link to copy, with a role, an
// expiry and a number of uses), revoking them, removing members, leaving, and transferring it.
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, messageOf, type Answer } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage } from '../ui/field';
import { useCampaignAccess, type Role } from '../campaigns/access';
import { useMe } from '../account/api';
import { useCampaign, useCampaignSlug } from '../campaigns/api';
import { useChangeRole, useCreateInvitation, useDefaultVisibility, useInvitations, useMembers, useRemoveMember, useRevokeInvitation, useTransfer } from './api';

type Member = Answer<'listMembers'>[number];
type Invitation = Answer<'listInvitations'>[number];
type CreatedInvitation = Answer<'createInvitation', 201>;

const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', gm: 'Game master', player: 'Player' };

export function MembersPage() {
  const slug = useCampaignSlug();
  const campaign = useCampaign(slug);
  const { role, canEdit } = useCampaignAccess();
  const members = useMembers(slug);
  return (
    <main className="record" aria-labelledby="members-title">
      <p className="kind">{campaign.data?.data.name}</p>
      <h1 id="members-title">Members</h1>
      <p className="muted">
        Game masters see and edit everything. Players read the campaign, without GM-only records and secret blocks, and edit nothing. You are{' '}
        {role === 'owner' ? 'the owner' : role === 'gm' ? 'a game master' : 'a player'}.
      </p>
      {canEdit && campaign.data && <NewRecordsVisibility slug={slug} value={campaign.data.data.defaultVisibility} />}
      {canEdit && <InviteForm slug={slug} role={role} />}
      {canEdit && <PendingInvitations slug={slug} role={role} />}
      <section aria-labelledby="member-list-heading">
        <h2 id="member-list-heading">People</h2>
        {members.error && <ErrorMessage>{messageOf(members.error)}</ErrorMessage>}
        <ul className="members">
          {members.data?.map((member) => <MemberRow key={member.userId} slug={slug} member={member} myRole={role} />)}
        </ul>
      </section>
    </main>
  );
}

function InviteForm({ slug, role }: { slug: string; role: Role }) {
  const invite = useCreateInvitation(slug);
  const created: CreatedInvitation | undefined = invite.data;
  const error = invite.error;
  const [copied, setCopied] = useState(false);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setCopied(false);
    const days = Number(form.get('days'));
    invite.mutate({ role: form.get('role') === 'gm' ? 'gm' : 'player', expiresAt: new Date(Date.now() + days * 86_400_000).toISOString(), maxUses: Number(form.get('maxUses')) });
  };
  const copy = async () => {
    if (!created) return;
    await navigator.clipboard.writeText(created.url);
    setCopied(true);
  };
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form className="inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" name="role" defaultValue="player">
            <option value="player">Player</option>
            {role === 'owner' && <option value="gm">Game master</option>}
          </select>
        </div>
        <div className="field">
          <label htmlFor="invite-days">Valid for (days)</label>
          <input id="invite-days" name="days" type="number" min={1} max={365} defaultValue={7} required />
        </div>
        <div className="field">
          <label htmlFor="invite-uses">How many people</label>
          <input id="invite-uses" name="maxUses" type="number" min={1} max={1000} defaultValue={1} required />
        </div>
        <button type="submit" className="primary">
          Create invitation link
        </button>
      </form>
      <ErrorMessage>{error instanceof ApiError ? (error.problem?.errors?.[0]?.message ?? error.message) : error ? messageOf(error) : undefined}</ErrorMessage>
      {created && (
        <div className="invitation-link" role="status">
          <label htmlFor="invitation-url">Send this link ({ROLE_NAMES[created.role]}, shown only now)</label>
          <div className="inline-form">
            <input id="invitation-url" readOnly value={created.url} onFocus={(e) => e.target.select()} />
            <button type="button" onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/** The campaign's `defaultVisibility`: whether new things and arcs start GM-only. */
function NewRecordsVisibility({ slug, value }: { slug: string; value: 'all' | 'gm' }) {
  const write = useDefaultVisibility(slug);
  const error = write.error ? messageOf(write.error) : undefined;
  // What was just asked for, shown at once (set with the click, not when the mutation reports it is
  // pending) until the campaign's record answers it or the request fails.
  const [asked, setAsked] = useState<boolean>();
  const change = (gmOnly: boolean) => {
    setAsked(gmOnly);
    write.mutate(gmOnly ? 'gm' : 'all', { onSettled: () => setAsked(undefined) });
  };
  return (
    <section aria-labelledby="new-records-heading">
      <h2 id="new-records-heading">New records</h2>
      <div className="field checkbox-field">
        <label>
          <input type="checkbox" checked={asked ?? value === 'gm'} disabled={asked !== undefined} onChange={(e) => change(e.target.checked)} /> New things and arcs start GM only
        </label>
        <p className="hint">For preparing ahead: players see a new record only once a game master clears its “GM only” switch. The switch in the new-thing and new-arc dialogs starts here.</p>
      </div>
      <ErrorMessage>{error}</ErrorMessage>
    </section>
  );
}

function PendingInvitations({ slug, role }: { slug: string; role: Role }) {
  const me = useMe();
  const invitations = useInvitations(slug);
  const revoke = useRevokeInvitation(slug);
  if (!invitations.data || invitations.data.length === 0) return null;
  return (
    <section aria-labelledby="pending-heading">
      <h2 id="pending-heading">Pending invitations</h2>
      <ul className="members">
        {invitations.data.map((invitation: Invitation) => (
          <li key={invitation.id}>
            <span>
              {ROLE_NAMES[invitation.role]} · used {invitation.uses} of {invitation.maxUses} · expires {new Date(invitation.expiresAt).toLocaleDateString()}
            </span>
            {/* The owner revokes any link; a game master only their own. */}
            {(role === 'owner' || invitation.createdBy === me?.id) && (
              <ConfirmButton label="Revoke" title="Revoke this invitation?" confirmLabel="Revoke" onConfirm={async () => {
                await revoke.mutateAsync(invitation.id);
              }}>
                <p>The link stops working at once. People who joined with it stay members.</p>
              </ConfirmButton>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function MemberRow({ slug, member, myRole }: { slug: string; member: Member; myRole: Role }) {
  const me = useMe();
  const navigate = useNavigate();
  const roleChange = useChangeRole(slug);
  const transfer = useTransfer(slug);
  const remove = useRemoveMember(slug);
  const error = roleChange.error ? messageOf(roleChange.error) : undefined;
  const { viewingAsPlayer } = useCampaignAccess();
  const self = me?.id === member.userId;
  // Viewing as a player is read-only on the server: not even leaving (CONTRACT "Authorization holds for the whole request").
  const mayRemove = !viewingAsPlayer && member.role !== 'owner' && (self || myRole === 'owner' || (myRole === 'gm' && member.role === 'player'));
  const changeRole = (role: 'gm' | 'player') => roleChange.mutate({ userId: member.userId, role });
  return (
    <li>
      <span className="member-name">
        {member.name}
        {self && ' (you)'}
        {member.email && <span className="muted"> · {member.email}</span>}
      </span>
      {myRole === 'owner' && member.role !== 'owner' ? (
        <select aria-label={`Role of ${member.name}`} value={member.role} onChange={(e) => changeRole(e.target.value === 'gm' ? 'gm' : 'player')}>
          <option value="gm">Game master</option>
          <option value="player">Player</option>
        </select>
      ) : (
        <span className="role">{ROLE_NAMES[member.role]}</span>
      )}
      {myRole === 'owner' && member.role !== 'owner' && (
        <ConfirmButton label={`Make ${member.name} the owner`} title={`Transfer the campaign to ${member.name}?`} confirmLabel="Transfer" onConfirm={async () => {
          await transfer.mutateAsync(member.userId);
        }}>
          <p>{member.name} becomes the owner; you become a game master. Only the new owner can undo this.</p>
        </ConfirmButton>
      )}
      {mayRemove && (
        <ConfirmButton label={self ? 'Leave the campaign' : `Remove ${member.name}`} title={self ? 'Leave the campaign?' : `Remove ${member.name}?`} confirmLabel={self ? 'Leave' : 'Remove'} onConfirm={async () => {
          await remove.mutateAsync({ userId: member.userId, self });
          if (self) await navigate('/', { replace: true });
        }}>
          <p>{self ? 'You will no longer see this campaign, until someone invites you again.' : `${member.name} will no longer see this campaign, from their next click on.`}</p>
        </ConfirmButton>
      )}
      <ErrorMessage>{error}</ErrorMessage>
    </li>
  );
}
