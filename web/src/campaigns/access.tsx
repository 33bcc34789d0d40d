// What the signed-in user may do in the campaign on screen, as the server says (the campaign's
// `role`): players read, and see no edit control anywhere; owners and game masters edit, and may
// switch to seeing the campaign as its players do.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useState, type ReactNode } from 'react';
import { playerViewCampaign, setPlayerView } from '../api/view';
import { dismissUndo } from '../ui/undo-notice';
import { campaignKey } from './api';

export type Role = 'owner' | 'gm' | 'player';

export interface CampaignAccess {
  /** The role the app acts with: `player` while viewing as a player. */
  role: Role;
  canEdit: boolean;
  viewingAsPlayer: boolean;
  /** Whether the user may switch the player view (an owner or a game master). */
  canViewAsPlayer: boolean;
  setViewingAsPlayer: (on: boolean) => void;
}

const Access = createContext<CampaignAccess>({ role: 'player', canEdit: false, viewingAsPlayer: false, canViewAsPlayer: false, setViewingAsPlayer: () => undefined });

export function useCampaignAccess(): CampaignAccess {
  return useContext(Access);
}

export function usePlayerView(slug: string): [boolean, (on: boolean) => void] {
  const queryClient = useQueryClient();
  const [on, setOn] = useState(playerViewCampaign() === slug);
  return [
    on,
    (next: boolean) => {
      setPlayerView(slug, next);
      // The player view is read-only: an Undo offered before the switch could only be refused.
      if (next) dismissUndo();
      // Nothing read in the other view may be shown in this one.
      queryClient.removeQueries({ queryKey: campaignKey(slug) });
      setOn(next);
    },
  ];
}

export function CampaignAccessProvider({ role, viewingAsPlayer, setViewingAsPlayer, children }: { role: Role; viewingAsPlayer: boolean; setViewingAsPlayer: (on: boolean) => void; children: ReactNode }) {
  const value: CampaignAccess = { role, canEdit: role !== 'player', viewingAsPlayer, canViewAsPlayer: viewingAsPlayer || role !== 'player', setViewingAsPlayer };
  return <Access.Provider value={value}>{children}</Access.Provider>;
}

/** Marks a GM-only record, visibly and for screen readers. */
export function GmOnlyBadge({ visibility }: { visibility: string | undefined }) {
  if (visibility !== 'gm') return null;
  return (
    <span className="gm-badge" title="GM only: players never see this">
      GM only
    </span>
  );
}

/** The GM-only switch of a thing or an arc: players never see a GM-only record, anywhere. */
export function GmOnlyField({ value, onChange, what }: { value: string; onChange: (visibility: 'all' | 'gm') => void; what: string }) {
  return (
    <div className="field checkbox-field">
      <label>
        <input type="checkbox" defaultChecked={value === 'gm'} onChange={(e) => onChange(e.target.checked ? 'gm' : 'all')} /> GM only
      </label>
      <p className="hint">Players never see a GM-only {what}: not in lists, search, links or mentions.</p>
    </div>
  );
}
