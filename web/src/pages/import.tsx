// Importing a campaign: a file goes to POST /api/campaigns/import with upload progress, then the
// report of what was imported (or, for a file that cannot be imported, which entry is wrong and why).
//
// The upload is the one request not sent through the generated client: a browser reports upload
// progress only to XMLHttpRequest, not to fetch. It is the same public route, its path and answer
// typed by the generated schema.
import { useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, messageOf, type Answer, type Problem } from '../api/client';
import type { paths } from '../api/schema';
import { ErrorMessage } from '../components/field';

type Imported = Answer<'importCampaign', 201>;

const IMPORT_PATH = '/api/campaigns/import' satisfies keyof paths;

type Stage = { kind: 'idle' } | { kind: 'uploading'; percent: number } | { kind: 'importing' } | { kind: 'done'; imported: Imported } | { kind: 'failed'; error: ApiError };

/** Sends the file as a form, reporting upload progress; resolves to the new campaign or rejects with an ApiError. */
function upload(file: File, onProgress: (percent: number) => void, onSent: () => void): Promise<Imported> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', IMPORT_PATH);
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(Math.round((event.loaded / event.total) * 100));
    });
    request.upload.addEventListener('load', onSent);
    request.addEventListener('load', () => {
      if (request.status === 201) resolve(request.response as Imported);
      else reject(new ApiError(request.status, (request.response as Problem | null) ?? undefined));
    });
    request.addEventListener('error', () => reject(new ApiError(0, undefined)));
    const form = new FormData();
    form.append('file', file);
    request.send(form);
  });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function ImportPage() {
  const queryClient = useQueryClient();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | undefined>();
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const busy = stage.kind === 'uploading' || stage.kind === 'importing';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setStage({ kind: 'uploading', percent: 0 });
    upload(
      file,
      (percent) => setStage((current) => (current.kind === 'uploading' ? { kind: 'uploading', percent } : current)),
      () => setStage({ kind: 'importing' }),
    ).then(
      async (imported) => {
        setStage({ kind: 'done', imported });
        await queryClient.invalidateQueries({ queryKey: ['campaigns'] });
      },
      (error: unknown) => setStage({ kind: 'failed', error: error instanceof ApiError ? error : new ApiError(0, undefined) }),
    );
  };

  return (
    <main className="narrow">
      <h1>Import a campaign</h1>
      <p>
        Bring a campaign in from a file. It becomes a new campaign of yours; nothing you already have changes. Any of these will do:
      </p>
      <ul>
        <li>an archive exported from Loreforge (.zip with campaign.json and its images);</li>
        <li>a JSON document exported from Loreforge;</li>
        <li>
          a Markdown vault (.zip), from Loreforge or from Obsidian and the like: each top-level folder becomes a thing type, each note a thing, and links
          between notes become mentions.
        </li>
      </ul>
      <p className="muted">Images in the file are uploaded images and need premium (the administrator of this server grants it). If anything in the file cannot be imported, nothing is.</p>
      <form onSubmit={submit} aria-label="Import a campaign" className="import-form">
        <div className="field">
          <label htmlFor={inputId}>File to import</label>
          <input
            id={inputId}
            ref={input}
            type="file"
            name="file"
            accept=".zip,.json,application/zip,application/json"
            disabled={busy}
            onChange={(event) => {
              setFile(event.target.files?.[0]);
              setStage({ kind: 'idle' });
            }}
          />
        </div>
        <button type="submit" className="primary" disabled={!file || busy}>
          Import
        </button>
      </form>
      <div role="status" aria-live="polite" className="import-progress">
        {stage.kind === 'uploading' && (
          <>
            <progress max={100} value={stage.percent} aria-label="Upload progress" /> Uploading… {stage.percent}%
          </>
        )}
        {stage.kind === 'importing' && (
          <>
            <progress aria-label="Import progress" /> Uploaded. Reading and checking the file, then importing…
          </>
        )}
      </div>
      {stage.kind === 'failed' && <ImportFailure error={stage.error} />}
      {stage.kind === 'done' && <ImportReport imported={stage.imported} />}
    </main>
  );
}

function ImportFailure({ error }: { error: ApiError }) {
  const problems = error.code === 'invalid_import' ? (error.problem?.errors ?? []) : [];
  return (
    <section aria-labelledby="import-failed" className="import-report">
      <h2 id="import-failed">Nothing was imported</h2>
      <ErrorMessage>{messageOf(error)}</ErrorMessage>
      {problems.length > 1 && (
        <ul>
          {problems.map((problem) => (
            <li key={problem.path}>
              <code>{problem.path}</code>: {problem.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ImportReport({ imported }: { imported: Imported }) {
  const report = imported.import;
  const format = report.format === 'archive' ? 'an archive' : report.format === 'json' ? 'a JSON document' : 'a Markdown vault';
  return (
    <section aria-labelledby="import-done" className="import-report">
      <h2 id="import-done">Imported {imported.name}</h2>
      <p>From {format}, as a new campaign of yours:</p>
      <ul>
        <li>{plural(report.thingTypes, 'thing type')}</li>
        <li>{plural(report.things, 'thing')}</li>
        <li>{plural(report.arcs, 'story arc')}</li>
        <li>{plural(report.links, 'link')} between things and arcs</li>
        <li>{plural(report.assets, 'uploaded image')}</li>
      </ul>
      {report.warnings.length > 0 && (
        <>
          <h3>Worth knowing</h3>
          <ul>
            {report.warnings.map((warning, i) => (
              <li key={i}>
                <code>{warning.entry}</code>: {warning.problem}
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <Link to={`/campaigns/${imported.slug}`} className="button primary">
          Open {imported.name}
        </Link>
      </p>
    </section>
  );
}
