// A campaign's trash (owner and game masters): what was deleted, by whom, when, and what went with
// it; restore (with everything its delete took) or erase now.
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../api/client';
import { ConfirmButton } from '../ui/confirm';
import { ErrorMessage } from '../ui/field';
import { useCampaignSlug, useRefreshCampaign } from '../campaigns/api';
import { When } from '../ui/when';
import { eraseFromTrash, restoredPath, restoreFromTrash, useTrash, type Restored, type TrashItem } from './trash-api';

const KIND_LABEL: Record<TrashItem['kind'], string> = { thing: 'Thing', arc: 'Arc', 'thing-type': 'Thing type', asset: 'Image' };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "with 3 things and 2 links", or nothing when the delete took nothing else. */
export function withWhat(counts: { things: number; arcs: number; links: number }): string | undefined {
  const parts = [counts.things > 0 && plural(counts.things, 'thing'), counts.arcs > 0 && plural(counts.arcs, 'arc'), counts.links > 0 && plural(counts.links, 'link')].filter((p): p is string => typeof p === 'string');
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
}

export function TrashPage() {
  const campaignSlug = useCampaignSlug();
  const trash = useTrash(campaignSlug);
  const refresh = useRefreshCampaign(campaignSlug);
  const [done, setDone] = useState<{ item: TrashItem; answer: Restored }>();
  const [error, setError] = useState<string>();
  // The item acted on leaves the list and took the focus with it: a keyboard user goes on from the
  // next item (or the heading when none is left), not from the top of the page.
  const list = useRef<HTMLUListElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [focusAt, setFocusAt] = useState<number>();
  useEffect(() => {
    if (focusAt === undefined) return;
    // After a dialog that closed has tried to give the focus back to its (removed) button.
    const timer = setTimeout(() => {
      setFocusAt(undefined);
      const active = document.activeElement;
      if (active !== null && active !== document.body && active.isConnected) return;
      const buttons = list.current?.querySelectorAll<HTMLButtonElement>('.trash-actions button.primary') ?? [];
      (buttons[Math.min(focusAt, buttons.length - 1)] ?? heading.current)?.focus();
    }, 50);
    return () => clearTimeout(timer);
  }, [focusAt, trash.data]);
  const restore = async (item: TrashItem, index: number) => {
    setError(undefined);
    setDone(undefined);
    try {
      const answer = await restoreFromTrash(campaignSlug, item.kind, item.id);
      await refresh();
      setDone({ item, answer });
      setFocusAt(index);
    } catch (e) {
      setError(`“${item.name}” could not be restored: ${messageOf(e)}`);
    }
  };
  return (
    <main className="record" aria-labelledby="trash-title">
      <h1 id="trash-title" ref={heading} tabIndex={-1}>
        Trash
      </h1>
      <p className="muted">Deleted things, arcs, thing types and images wait here before they are erased for good (after 30 days, unless this server is set otherwise). Restoring one brings back what its delete took with it.</p>
      <div role="status" className="trash-status">
        {done && (
          <p>
            Restored {KIND_LABEL[done.item.kind].toLowerCase()} <Link to={restoredPath(campaignSlug, done.item.kind, done.item.id, done.answer.slug)}>{done.item.name}</Link>
            {withWhat(done.answer.restored) && ` with ${withWhat(done.answer.restored)!}`}.
            {done.answer.slugChanged && ` Its old address was taken meanwhile: it is now at “${done.answer.slug ?? ''}”.`}
          </p>
        )}
      </div>
      <ErrorMessage>{error}</ErrorMessage>
      {trash.isPending && <p className="loading">Loading…</p>}
      {trash.error && <ErrorMessage>{messageOf(trash.error)}</ErrorMessage>}
      {trash.data?.length === 0 && <p>The trash is empty.</p>}
      <ul className="cards trash-list" aria-label="Deleted items" ref={list}>
        {trash.data?.map((item, index) => {
          const extra = withWhat(item.with);
          return (
            <li key={`${item.kind}-${item.id}`} aria-label={`${KIND_LABEL[item.kind]} ${item.name}`}>
              <div className="trash-item">
                <p className="trash-what">
                  <span className="kind-tag">{KIND_LABEL[item.kind]}</span> <strong>{item.name}</strong>
                  {extra && <span className="muted"> with {extra}</span>}
                </p>
                <p className="muted trash-when">
                  Deleted <When at={item.deletedAt} />
                  {item.deletedBy && ` by ${item.deletedBy.name}`}
                </p>
              </div>
              <div className="trash-actions">
                <button type="button" className="primary" onClick={() => void restore(item, index)}>
                  Restore
                </button>
                <ConfirmButton
                  label="Erase now"
                  title={`Erase “${item.name}” for good?`}
                  confirmLabel="Erase for good"
                  onConfirm={async () => {
                    await eraseFromTrash(campaignSlug, item.kind, item.id);
                    await refresh();
                    setFocusAt(index);
                  }}
                >
                  <p>
                    {item.name}
                    {extra ? `, with the ${extra} deleted with it,` : ''} is erased now{item.kind === 'thing' || item.kind === 'arc' ? ', with its history' : ''}. This cannot be undone.
                  </p>
                </ConfirmButton>
              </div>
            </li>
          );
        })}
      </ul>
    </main>
  );
}
