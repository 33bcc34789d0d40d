import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { useRefreshCampaign } from './queries';

/** A write in the campaign from a button: its error as a sentence, and everything refreshed after it. */
export function useCampaignAction(campaignSlug: string): { error: string | undefined; act: (run: () => Promise<unknown>) => Promise<void> } {
  const refresh = useRefreshCampaign(campaignSlug);
  const [error, setError] = useState<string>();
  const act = async (run: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await run();
      await refresh();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return { error, act };
}

/** Deleting a thing or an arc: a confirmation that says what goes with it, then the campaign's home. */
export function DeleteRecordButton({ campaignSlug, what, name, remove, children }: { campaignSlug: string; what: string; name: string; remove: () => Promise<unknown>; children: ReactNode }) {
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  return (
    <ConfirmButton
      label={`Delete ${what}`}
      title={`Delete ${name}?`}
      confirmLabel="Delete"
      onConfirm={async () => {
        await remove();
        await navigate(`/campaigns/${campaignSlug}`, { replace: true });
        await refresh();
      }}
    >
      {children}
    </ConfirmButton>
  );
}
