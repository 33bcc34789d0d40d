import { Link } from 'react-router';
import { messageOf } from '../api/client';
import { ErrorMessage } from '../ui/field';
import { useBacklinks } from './api';
import { useCampaignAccess } from '../campaigns/access';

/** "Mentioned in": every record whose rich text mentions this one (a reader is shown nothing while none does). */
export function Backlinks({ campaignSlug, kind, slug }: { campaignSlug: string; kind: 'things' | 'arcs'; slug: string }) {
  const backlinks = useBacklinks(campaignSlug, kind, slug);
  const { canEdit } = useCampaignAccess();
  if (!canEdit && !backlinks.error && !backlinks.data?.length) return null;
  return (
    <section aria-labelledby="backlinks-heading">
      <h2 id="backlinks-heading">Mentioned in</h2>
      {backlinks.error && <ErrorMessage>{messageOf(backlinks.error)}</ErrorMessage>}
      {/* The line the answer takes, held while it comes: nothing below moves when it does. */}
      {backlinks.isPending && <p className="muted">Loading…</p>}
      {backlinks.data?.length === 0 && <p className="muted">Nothing mentions it yet.</p>}
      <ul>
        {backlinks.data?.map((b) => (
          <li key={`${b.type}-${b.id}`}>
            <Link to={b.type === 'campaign' ? `/campaigns/${campaignSlug}` : `/campaigns/${campaignSlug}/${b.type === 'thing' ? 'things' : 'arcs'}/${b.slug}`}>{b.name}</Link>
            <span className="muted"> ({b.fields.join(', ')})</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
