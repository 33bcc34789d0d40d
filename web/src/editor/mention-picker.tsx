import * as Dialog from '@radix-ui/react-dialog';
import { useRef } from 'react';
import { SearchList } from '../components/search-list';

export interface MentionTarget {
  targetType: 'thing' | 'arc';
  targetId: number;
  name: string;
}

/**
 * The popup of `@` and `[[`: things and arcs of the campaign matching what is typed. Closed
 * without a pick, it hands back what was typed into it (keystrokes that followed the trigger
 * belong to the text, not to a dialog that is gone).
 */
export function MentionPicker({ campaignSlug, onPick }: { campaignSlug: string; onPick: (target: MentionTarget | undefined, typed: string) => void }) {
  const typed = useRef('');
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onPick(undefined, typed.current)}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog picker" aria-describedby={undefined}>
          <Dialog.Title>Mention a thing or an arc</Dialog.Title>
          <SearchList
            campaignSlug={campaignSlug}
            label="Thing or arc to mention"
            autoFocus
            onQueryChange={(q) => (typed.current = q)}
            exclude={(r) => r.type === 'campaign'}
            renderItem={(r) => (
              <>
                {r.name} <span className="muted">({r.type})</span>
              </>
            )}
            onPick={(r) => onPick({ targetType: r.type as 'thing' | 'arc', targetId: r.id, name: r.name }, '')}
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
