// Importing a campaign (CONTRACT "Import from elsewhere"): choose a file, Check it (the dry run:
// the report of what would come in, every warning, nothing created), then Import it in the
// background (a job, read until done, with progress) and open the new campaign.
//
// The job's id is in the page's address (/import?job=…) and in this tab's sessionStorage, so the
// page shows it again after the user went elsewhere while it ran. One Idempotency-Key per checked
// file, kept for every retry of that attempt: a double click, or a retry after an answer that was
// lost, answers the first job instead of making a second campaign. Only a new attempt (after a job
// failed, or for another file) takes a new key.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { checkImport, importJobKey, newIdempotencyKey, rememberedJob, startImport, type ImportReport } from './api';
import { ImportJobView } from './job';
import { formatName, ImportCounts, ImportWarnings } from './report';

type Check = { kind: 'idle' } | { kind: 'checking'; percent: number } | { kind: 'checked'; report: ImportReport; key: string } | { kind: 'failed'; error: ApiError };
type Send = { kind: 'idle' } | { kind: 'sending'; percent: number } | { kind: 'failed'; error: ApiError };

const asApiError = (error: unknown) => (error instanceof ApiError ? error : new ApiError(0, undefined));

export function ImportPage() {
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job') ?? undefined;
  const inputId = useId();
  const [file, setFile] = useState<File | undefined>();
  const [gmOnly, setGmOnly] = useState(false);
  const [check, setCheck] = useState<Check>({ kind: 'idle' });
  const [send, setSend] = useState<Send>({ kind: 'idle' });
  // Set before the first click's state is rendered: a second click in the same moment sends nothing.
  const sending = useRef(false);
  // A job started after the user left the page (the upload finished meanwhile) is remembered, not shown.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // Back on the page without the job in its address: the job this tab started and has not seen end.
  useEffect(() => {
    const remembered = rememberedJob.get();
    if (!jobId && remembered) setParams({ job: remembered }, { replace: true });
  }, [jobId, setParams]);

  const runCheck = (event: FormEvent) => {
    event.preventDefault();
    if (!file || check.kind === 'checking') return;
    setSend({ kind: 'idle' });
    setCheck({ kind: 'checking', percent: 0 });
    checkImport(file, { gmOnly }, (percent) => setCheck((current) => (current.kind === 'checking' ? { kind: 'checking', percent } : current))).then(
      (report) => setCheck({ kind: 'checked', report, key: newIdempotencyKey() }),
      (error: unknown) => setCheck({ kind: 'failed', error: asApiError(error) }),
    );
  };

  const runImport = (key: string) => {
    if (!file || sending.current) return;
    sending.current = true;
    setSend({ kind: 'sending', percent: 0 });
    startImport(file, { gmOnly }, key, (percent) => setSend((current) => (current.kind === 'sending' ? { kind: 'sending', percent } : current))).then(
      (job) => {
        sending.current = false;
        const id = String(job.id);
        rememberedJob.set(id);
        if (!mounted.current) return;
        queryClient.setQueryData(importJobKey(id), job);
        setSend({ kind: 'idle' });
        setParams({ job: id });
      },
      (error: unknown) => {
        sending.current = false;
        setSend({ kind: 'failed', error: asApiError(error) });
      },
    );
  };

  const startOver = () => {
    rememberedJob.forget();
    setFile(undefined);
    setCheck({ kind: 'idle' });
    setSend({ kind: 'idle' });
    setParams({});
  };

  // After a failed job, the same file (still here unless the page was loaded again) as a new attempt.
  const retryJob =
    file && check.kind === 'checked'
      ? () => {
          const key = newIdempotencyKey();
          setCheck({ ...check, key });
          setParams({}, { replace: true });
          runImport(key);
        }
      : undefined;

  if (jobId) {
    return (
      <main className="narrow">
        <h1>Import a campaign</h1>
        <ImportJobView key={jobId} id={jobId} onAgain={startOver} onRetry={retryJob} />
      </main>
    );
  }

  const busy = check.kind === 'checking' || send.kind === 'sending';
  return (
    <main className="narrow">
      <h1>Import a campaign</h1>
      <p>Bring a campaign in from a file. It becomes a new campaign of yours; nothing you already have changes. Any of these will do:</p>
      <ul>
        <li>an archive exported from Loreforge (.zip with campaign.json and its images);</li>
        <li>a JSON document exported from Loreforge;</li>
        <li>
          a Markdown vault (.zip), from Loreforge or from Obsidian and the like: each top-level folder becomes a thing type, each note a thing, and links
          between notes become mentions.
        </li>
      </ul>
      <p className="muted">
        Check the file first: the check reads all of it and shows what would come in, with every warning, and creates nothing. A vault comes in even where a
        note or an image cannot be read as it should (it is imported as well as it can be, or left out, and listed); an archive or a JSON document comes in
        whole or not at all. Images are uploaded images and need premium (the administrator of this server grants it).
      </p>
      <form onSubmit={runCheck} aria-label="Import a campaign" className="import-form">
        <div className="field">
          <label htmlFor={inputId}>File to import</label>
          <input
            id={inputId}
            type="file"
            name="file"
            accept=".zip,.json,application/zip,application/json"
            disabled={busy}
            onChange={(event) => {
              setFile(event.target.files?.[0]);
              setCheck({ kind: 'idle' });
              setSend({ kind: 'idle' });
            }}
          />
        </div>
        <label className="checkbox-label">
          <input type="checkbox" checked={gmOnly} disabled={busy} onChange={(event) => setGmOnly(event.target.checked)} /> Make everything GM-only
        </label>
        <button type="submit" disabled={!file || busy}>
          Check
        </button>
      </form>
      <div role="status" aria-live="polite">
        {check.kind === 'checking' && 'Sending the file to be checked…'}
        {send.kind === 'sending' && 'Sending the file to be imported: stay on this page until it is sent; then the import goes on without you.'}
      </div>
      {check.kind === 'checking' && <UploadProgress percent={check.percent} />}
      {check.kind === 'failed' && <CheckFailure error={check.error} />}
      {check.kind === 'checked' && file && (
        <section aria-labelledby={`${inputId}-preview`} className="import-report">
          <FocusedHeading id={`${inputId}-preview`}>Ready to import {file.name}</FocusedHeading>
          <p>From {formatName(check.report.format)}, this becomes a new campaign of yours with:</p>
          <ImportCounts report={check.report} />
          {gmOnly && <p>Every thing and arc in it will be GM-only: players see none of it until you share it.</p>}
          <ImportWarnings warnings={check.report.warnings} />
          {send.kind === 'sending' && <UploadProgress percent={send.percent} />}
          {send.kind === 'failed' && <SendFailure error={send.error} />}
          <p className="import-actions">
            <button type="button" className="primary" disabled={send.kind === 'sending'} onClick={() => runImport(check.key)}>
              {send.kind === 'failed' ? 'Try again' : 'Import'}
            </button>
          </p>
        </section>
      )}
    </main>
  );
}

function UploadProgress({ percent }: { percent: number }) {
  return (
    <div className="import-progress">
      <progress max={100} value={percent} aria-label="Upload progress" /> <span>Uploading… {percent}%</span>
    </div>
  );
}

function FocusedHeading({ id, children }: { id: string; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h2 id={id} ref={heading} tabIndex={-1}>
      {children}
    </h2>
  );
}

/** The message for a refused or failed upload, focused as it appears. */
function FocusedError({ error }: { error: ApiError }) {
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => message.current?.focus(), [error]);
  return (
    <p className="error" role="alert" tabIndex={-1} ref={message}>
      {explain(error)}
    </p>
  );
}

/** The server's words, or ours where an answer has none (a proxy's 413, no connection). */
function explain(error: ApiError): string {
  if (error.problem?.detail) return error.problem.detail;
  switch (error.status) {
    case 0:
      return 'The server cannot be reached: check the connection and try again.';
    case 403:
      return error.code === 'premium_required' ? 'The file holds images, and images need premium (the administrator of this server grants it).' : messageOf(error);
    case 413:
      return 'The file is larger than this server takes.';
    case 429:
      return 'Too many imports just now: try again in a minute.';
    default:
      return messageOf(error);
  }
}

function CheckFailure({ error }: { error: ApiError }) {
  const problems = error.code === 'invalid_import' ? (error.problem?.errors ?? []) : [];
  const theFile = error.status === 400 || error.status === 403 || error.status === 413 || error.status === 415;
  return (
    <section aria-label={theFile ? 'This file cannot be imported' : 'The check did not go through'} className="import-report">
      <h2>{theFile ? 'This file cannot be imported' : 'The check did not go through'}</h2>
      <FocusedError error={error} />
      {problems.length > 1 && (
        <ul>
          {problems.map((problem) => (
            <li key={problem.path}>
              <code>{problem.path}</code>: {problem.message}
            </li>
          ))}
        </ul>
      )}
      <p>Nothing was imported.</p>
    </section>
  );
}

function SendFailure({ error }: { error: ApiError }) {
  return (
    <div className="import-send-failure">
      <FocusedError error={error} />
      <p>Trying again is safe: if the first attempt reached the server, it answers with that import instead of starting a second one.</p>
    </div>
  );
}
