// The campaigns the signed-in user deleted (their owner's trash): restore or erase now. Shown on the
// campaigns page only when there is one.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage } from '../ui/field';
import { When } from '../ui/when';
import { eraseCampaignFromTrash, restoreCampaignFromTrash, useRefreshCampaignLists, useTrashedCampaigns } from './trash-api';

export function DeletedCampaigns() {
  const trashed = useTrashedCampaigns();
  const refresh = useRefreshCampaignLists();
  const navigate = useNavigate();
  const [error, setError] = useState<string>();
  if (!trashed.data || trashed.data.length === 0) return trashed.error ? <ErrorMessage>{messageOf(trashed.error)}</ErrorMessage> : null;
  return (
    <section aria-labelledby="deleted-campaigns" className="deleted-campaigns">
      <h2 id="deleted-campaigns">Deleted campaigns</h2>
      <p className="muted">They wait here before they are erased for good (after 30 days, unless this server is set otherwise); no member can open them meanwhile.</p>
      <ErrorMessage>{error}</ErrorMessage>
      <ul className="cards trash-list">
        {trashed.data.map((c) => (
          <li key={c.id} aria-label={c.name}>
            <div className="trash-item">
              <p>
                <strong>{c.name}</strong>
              </p>
              <p className="muted">
                Deleted <When at={c.deletedAt} />
              </p>
            </div>
            <div className="trash-actions">
              <button
                type="button"
                className="primary"
                onClick={() =>
                  void (async () => {
                    setError(undefined);
                    try {
                      const answer = await restoreCampaignFromTrash(c.id);
                      await refresh();
                      await navigate(`/campaigns/${answer.slug ?? c.slug}`);
                    } catch (e) {
                      setError(`“${c.name}” could not be restored: ${messageOf(e)}`);
                    }
                  })()
                }
              >
                Restore
              </button>
              <ConfirmButton
                label="Erase now"
                title={`Erase “${c.name}” for good?`}
                confirmLabel="Erase for good"
                onConfirm={async () => {
                  await eraseCampaignFromTrash(c.id);
                  await refresh();
                }}
              >
                <p>Every thing, type, arc, link, image and revision of {c.name} is erased now. This cannot be undone.</p>
              </ConfirmButton>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
