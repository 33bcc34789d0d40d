import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { restoredPath, restoreFromTrash, type TrashKind } from '../history/trash-api';
import { showUndo } from '../ui/undo-notice';
import { useCampaignWrite, useRefreshCampaign } from '../campaigns/api';

/** A write in the campaign from a button (campaigns/api.ts useCampaignWrite): its error as a sentence, and everything refreshed after it. */
export function useCampaignAction(campaignSlug: string): { error: string | undefined; act: (run: () => Promise<unknown>) => Promise<void> } {
  const write = useCampaignWrite(campaignSlug, (run: () => Promise<unknown>) => run());
  // The failure is shown from the mutation's state; the caller's await only waits for it.
  const act = (run: () => Promise<unknown>) => write.mutateAsync(run).then(
    () => undefined,
    () => undefined,
  );
  return { error: write.error ? messageOf(write.error) : undefined, act };
}

/** A record's editing state, as far as a delete needs it (records/record-state.ts). */
export interface UnsentEdits {
  flush(): Promise<void>;
  pending: object;
}

/** Saves what was typed and not yet sent before a delete, so the trash (and Undo) hold it; throws, and nothing is deleted, if it cannot be saved. */
export async function saveBeforeDelete(state: UnsentEdits, what: string): Promise<void> {
  await state.flush();
  if (Object.keys(state.pending).length > 0) throw new Error(`Your last changes to the ${what} could not be saved, so it was not deleted. Save them (or undo them) first.`);
}

/**
 * Deleting a thing or an arc: a confirmation that says what goes with it, then the campaign's home
 * and the Undo notice, which restores it from the trash and goes back to it. What was typed and not
 * yet sent is saved first (`state`), so the trash, and Undo, hold it too; if it cannot be saved,
 * nothing is deleted.
 */
export function DeleteRecordButton({
  campaignSlug,
  what,
  kind,
  id,
  name,
  state,
  remove,
  children,
}: {
  campaignSlug: string;
  what: string;
  kind: TrashKind;
  id: number;
  name: string;
  state: UnsentEdits;
  remove: () => Promise<unknown>;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  const restore = useRestoreFromTrash(campaignSlug);
  return (
    <ConfirmButton
      label={`Delete ${what}`}
      title={`Delete ${name}?`}
      confirmLabel="Delete"
      onConfirm={async () => {
        await saveBeforeDelete(state, what);
        await remove();
        await navigate(`/campaigns/${campaignSlug}`, { replace: true });
        showUndo(`${what[0]!.toUpperCase()}${what.slice(1)} “${name}” moved to the trash.`, () => restore(kind, id));
        await refresh();
      }}
    >
      {children}
    </ConfirmButton>
  );
}

/** Restores an item of the campaign's trash, refreshes what it changed and opens it. */
export function useRestoreFromTrash(campaignSlug: string) {
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  return async (kind: TrashKind, id: number) => {
    const answer = await restoreFromTrash(campaignSlug, kind, id);
    await refresh();
    await navigate(restoredPath(campaignSlug, kind, id, answer.slug));
    return answer;
  };
}
