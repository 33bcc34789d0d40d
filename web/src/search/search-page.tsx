import { Fragment, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { messageOf } from '../api/client';
import { ErrorMessage, formText } from '../ui/field';
import { useCampaignSlug } from '../campaigns/api';
import { TagFilter, tagsInAddress } from '../things/type-fields';
import { useSearchResults } from './api';

/** The excerpt with every highlighted word marked (text only: nothing is parsed as markup). */
export function highlight(excerpt: string, words: string[]): ReactNode {
  const needles = words.filter((w) => w.trim() !== '').map((w) => w.toLowerCase());
  if (needles.length === 0) return excerpt;
  const pattern = new RegExp(`(${needles.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi');
  return excerpt.split(pattern).map((part, i) => (needles.includes(part.toLowerCase()) ? <mark key={i}>{part}</mark> : <Fragment key={i}>{part}</Fragment>));
}

export function SearchPage() {
  const campaignSlug = useCampaignSlug();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const type = params.get('type') ?? '';
  // The tag filter is the search route's own (`tag`, all must match), kept in the address like the words.
  const tags = params.getAll('tag');
  const results = useSearchResults(campaignSlug, q, type, tags);
  const withTags = (next: URLSearchParams, chosen: string[]) => {
    for (const tag of chosen) next.append('tag', tag);
    return next;
  };
  return (
    <main className="record" aria-labelledby="search-title">
      <h1 id="search-title">Search</h1>
      <form
        role="search"
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const next = new URLSearchParams({ q: formText(form, 'q') });
          if (form.get('type')) next.set('type', formText(form, 'type'));
          setParams(withTags(next, tagsInAddress()));
        }}
      >
        <div className="field">
          <label htmlFor="search-q">Words</label>
          <input id="search-q" name="q" type="search" defaultValue={q} key={q} />
        </div>
        <div className="field">
          <label htmlFor="search-type">Only</label>
          <select id="search-type" name="type" defaultValue={type}>
            <option value="">Everything</option>
            <option value="thing">Things</option>
            <option value="arc">Arcs</option>
            <option value="campaign">The campaign</option>
          </select>
        </div>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <TagFilter
        campaignSlug={campaignSlug}
        tags={tags}
        onChange={(chosen) => {
          // From the address as it is now (see tagsInAddress): never from an older render's.
          const next = new URLSearchParams(window.location.search);
          next.delete('tag');
          setParams(withTags(next, chosen), { replace: true });
        }}
      />
      {results.error && <ErrorMessage>{messageOf(results.error)}</ErrorMessage>}
      {/* The first answer for these words on its way (a later one keeps the results shown meanwhile). */}
      {results.isLoading && <p className="loading">Searching…</p>}
      {results.data && (
        <p role="status">
          {results.data.results.length} result{results.data.results.length === 1 ? '' : 's'} for “{q}”{tags.length > 0 && ` tagged ${tags.join(', ')}`}
        </p>
      )}
      <ol className="results-list">
        {results.data?.results.map((r) => (
          <li key={`${r.type}-${r.id}`}>
            <Link to={r.type === 'campaign' ? `/campaigns/${campaignSlug}` : `/campaigns/${campaignSlug}/${r.type === 'thing' ? 'things' : 'arcs'}/${r.slug}`}>{r.name}</Link> <span className="muted">({r.type})</span>
            <p className="excerpt">{highlight(r.excerpt, r.highlights)}</p>
          </li>
        ))}
      </ol>
    </main>
  );
}
