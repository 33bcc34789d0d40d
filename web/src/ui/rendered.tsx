import type { MouseEvent, ReactNode } from 'react';
import { useNavigate } from 'react-router';

/**
 * The server's rendering of a rich-text field (the `rendered` route): the same HTML every API
 * client gets, built by the server from an allowlist (no script, no event handler, no style), so
 * it is shown as it is. Links to the app's own pages (mentions) navigate inside the app. `empty`:
 * what an empty text shows (nothing at all with `null`).
 */
export function Rendered({ html, label, empty = <p className="muted">Nothing written yet.</p> }: { html: string | undefined; label: string; empty?: ReactNode }) {
  const navigate = useNavigate();
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const anchor = (event.target as HTMLElement).closest('a');
    const href = anchor?.getAttribute('href');
    if (href?.startsWith('/') && !href.startsWith('//') && !event.metaKey && !event.ctrlKey) {
      event.preventDefault();
      void navigate(href);
    }
  };
  if (html === undefined) return <p className="loading">Loading…</p>;
  if (isEmptyHtml(html)) return empty;
  return <div className="rendered" aria-label={`${label} (rendered)`} role="region" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Whether the server's rendering of a text holds nothing. */
export const isEmptyHtml = (html: string | undefined) => html === '' || html === '<p></p>';
