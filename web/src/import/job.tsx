// An import under way in the background, read every POLL_MS until it is done or failed: a progress
// bar, then the report and the new campaign, or why it failed. A polite live region announces the
// milestones (started, each quarter, done or failed), not every step.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../api/client';
import { campaignsQuery } from '../campaigns/api';
import { ErrorMessage } from '../ui/field';
import { rememberedJob, useImportJob, type ImportJob } from './api';
import { formatName, ImportCounts, ImportWarnings } from './report';

export function percentOf(progress: ImportJob['progress']): number {
  return progress.total > 0 ? Math.min(100, Math.floor((progress.done * 100) / progress.total)) : 0;
}

/** What the live region says: it changes only at these milestones, so that a screen reader is not told every step. */
export function milestone(job: Pick<ImportJob, 'status' | 'progress'>): string {
  switch (job.status) {
    case 'queued':
      return 'Import waiting to start.';
    case 'running': {
      const quarter = Math.floor(percentOf(job.progress) / 25) * 25;
      return quarter === 0 ? 'Import started.' : quarter === 100 ? 'Import almost done.' : `Import ${quarter}% done.`;
    }
    case 'done':
      return 'Import done.';
    case 'failed':
      return 'Import failed.';
  }
}

export function ImportJobView({ id, onAgain, onRetry }: { id: string; onAgain: () => void; onRetry: (() => void) | undefined }) {
  const queryClient = useQueryClient();
  const job = useImportJob(id);
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const data = job.data;
  const phase = data?.status === 'done' || data?.status === 'failed' ? data.status : job.isError && !data ? 'unknown' : 'under way';

  // The heading of each phase takes the focus as it appears (the button that started it is gone).
  useEffect(() => {
    heading.current?.focus();
    if (phase === 'done' || phase === 'failed') {
      if (rememberedJob.get() === id) rememberedJob.forget();
    }
    if (phase === 'done') void queryClient.invalidateQueries({ queryKey: campaignsQuery.queryKey });
  }, [phase, id, queryClient]);

  return (
    <section aria-labelledby={headingId} className="import-job import-report">
      {phase === 'unknown' && (
        <>
          <h2 id={headingId} ref={heading} tabIndex={-1}>
            This import cannot be shown
          </h2>
          <ErrorMessage>{messageOf(job.error)}</ErrorMessage>
          <p>
            <button type="button" onClick={onAgain}>
              Import a file
            </button>
          </p>
        </>
      )}
      {phase === 'under way' && (
        <>
          <h2 id={headingId} ref={heading} tabIndex={-1}>
            Importing…
          </h2>
          {data ? (
            <div className="import-progress">
              {data.progress.total > 0 ? <progress aria-label="Import progress" max={data.progress.total} value={Math.min(data.progress.done, data.progress.total)} /> : <progress aria-label="Import progress" />}
              <span>{data.status === 'queued' ? 'Waiting to start' : `${percentOf(data.progress)}%`}</span>
            </div>
          ) : (
            <p>Looking up the import…</p>
          )}
          {job.isError && <p className="muted">The server does not answer just now; still asking.</p>}
          <p className="muted">
            You may leave this page: the import goes on on the server, and the new campaign appears in your campaigns when it is done. Back on this page (in
            this tab), you see how it went.
          </p>
        </>
      )}
      {phase === 'done' && data && (
        <>
          <h2 id={headingId} ref={heading} tabIndex={-1}>
            Imported {data.campaign?.name ?? 'the campaign'}
          </h2>
          {data.report && (
            <>
              <p>From {formatName(data.report.format)}, as a new campaign of yours:</p>
              <ImportCounts report={data.report} />
              <ImportWarnings warnings={data.report.warnings} />
            </>
          )}
          <p className="import-actions">
            {data.campaign && (
              <Link to={`/campaigns/${data.campaign.slug}`} className="button primary">
                Open {data.campaign.name}
              </Link>
            )}
            <button type="button" onClick={onAgain}>
              Import another file
            </button>
          </p>
        </>
      )}
      {phase === 'failed' && data && (
        <>
          <h2 id={headingId} ref={heading} tabIndex={-1}>
            The import failed
          </h2>
          <ErrorMessage>{data.error?.detail ?? data.error?.title ?? 'The server could not finish it.'}</ErrorMessage>
          <p>Nothing was imported.</p>
          <p className="import-actions">
            {onRetry && (
              <button type="button" className="primary" onClick={onRetry}>
                Try again
              </button>
            )}
            <button type="button" onClick={onAgain}>
              {onRetry ? 'Choose another file' : 'Choose the file again'}
            </button>
          </p>
        </>
      )}
      <div role="status" aria-live="polite" className="visually-hidden">
        {data && milestone(data)}
      </div>
    </section>
  );
}
