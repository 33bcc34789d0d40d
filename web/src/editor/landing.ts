// What a writer did on a text shown as read (records/record-page-standin.tsx) before its editor was
// there: where the pointer went down, then the keys, in order. The editor types them in when it
// mounts (editor/typing.ts). No Slate here: the page that shows the text as read imports this file.
import { createContext } from 'react';

export type PendingKey = { text: string } | { command: 'break' | 'soft-break' | 'delete-backward' | 'delete-forward' } | { move: 'start' | 'end' };

export interface Landing {
  /** Set once the writer reached for the text: the editor then takes the focus and the caret lands. */
  opened: boolean;
  point?: { pageX: number; pageY: number };
  keys: PendingKey[];
}

export const LandingContext = createContext<Landing | undefined>(undefined);
