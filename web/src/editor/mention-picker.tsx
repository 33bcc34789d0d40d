import * as Dialog from '@radix-ui/react-dialog';
import { useCallback, useEffect, useRef, useState } from 'react';
import { SearchList } from '../search/search-list';

export interface MentionTarget {
  targetType: 'thing' | 'arc';
  targetId: number;
  name: string;
}

/**
 * The popup of `@` and `[[`: things and arcs of the campaign matching what is typed (by name, by an
 * alias, shown with the record's name and the alias that matched, or by text). Closed
 * without a pick, it hands back what was typed into it (keystrokes that followed the trigger
 * belong to the text, not to a dialog that is gone).
 */
export function MentionPicker({
  campaignSlug,
  onPick,
  takeTyped,
}: {
  campaignSlug: string;
  onPick: (target: MentionTarget | undefined, typed: string) => void;
  /** Takes back the letters typed into the text after the trigger, before the picker had the focus. */
  takeTyped?: () => string;
}) {
  const typed = useRef('');
  const content = useRef<HTMLDivElement>(null);
  const [seed, setSeed] = useState('');
  // Effects run once the picker's field has the focus: nothing typed later lands in the text.
  useEffect(() => {
    setSeed(takeTyped?.() ?? '');
    // Taking the letters back changes the editor, and its re-render can put the document's selection,
    // and with it the focus, back into the text: the field takes the focus again once that is done.
    const refocus = setTimeout(() => {
      const field = content.current?.querySelector('input');
      if (field && document.activeElement !== field) field.focus();
    }, 0);
    return () => clearTimeout(refocus);
  }, [takeTyped]);
  const rememberTyped = useCallback((q: string) => {
    typed.current = q;
  }, []);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onPick(undefined, typed.current)}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content ref={content} className="dialog picker" aria-describedby={undefined}>
          <Dialog.Title>Mention a thing or an arc</Dialog.Title>
          <SearchList
            campaignSlug={campaignSlug}
            label="Thing or arc to mention"
            autoFocus
            seed={seed}
            onQueryChange={rememberTyped}
            exclude={(r) => r.type === 'campaign'}
            renderItem={(r) => (
              <>
                {r.name}
                {/* Found by another name: which one, so the record is recognised by what was typed. */}
                {r.alias !== undefined && <span className="muted"> “{r.alias}”</span>} <span className="muted">({r.type})</span>
              </>
            )}
            onPick={(r) => onPick({ targetType: r.type as 'thing' | 'arc', targetId: r.id, name: r.name }, '')}
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
