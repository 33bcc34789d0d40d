// The import's API calls and query keys (CONTRACT "Import from elsewhere"): a dry run that answers
// the report and creates nothing, an asynchronous import that answers a job, and the job, read
// until it is done or failed.
//
// The two uploads go through XMLHttpRequest, not the generated client: a browser reports upload
// progress only to XMLHttpRequest, and a vault can be a hundred megabytes. The job is read with
// fetch. Both are the public routes.
//
// The report and the job are the generated client's types (the routes' response schemas).
import { useQuery } from '@tanstack/react-query';
import { ApiError, type Answer, type Problem } from '../api/client';

/** What an import brings in (or, for a dry run, would bring in): the dry run's answer. */
export type ImportReport = Answer<'importCampaign', 200>;
export type ImportWarning = ImportReport['warnings'][number];
/** An import running in the background, as GET /api/imports/{importId} answers it. */
export type ImportJob = Answer<'getImportJob'>;
export type ImportJobStatus = ImportJob['status'];

export interface ImportOptions {
  /** `visibility=gm`: every imported record GM-only. */
  gmOnly: boolean;
}

export const IMPORT_PATH = '/api/campaigns/import';
export const jobPath = (id: string | number) => `/api/imports/${encodeURIComponent(String(id))}`;

/** How often a job still under way is read again. */
export const POLL_MS = 750;

export const importJobKey = (id: string) => ['imports', id] as const;

export const isFinished = (job: ImportJob | undefined): boolean => job?.status === 'done' || job?.status === 'failed';

/** A fresh Idempotency-Key: 128 random bits in hex (crypto.getRandomValues works on plain http too, randomUUID does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function importUrl(options: ImportOptions, dryRun: boolean): string {
  const query = new URLSearchParams();
  if (dryRun) query.set('dryRun', 'true');
  if (options.gmOnly) query.set('visibility', 'gm');
  const search = query.toString();
  return search ? `${IMPORT_PATH}?${search}` : IMPORT_PATH;
}

/** Sends the file as a form (field `file`), reporting upload progress in percent; resolves to the answer's body if its status is one of `expected`, else rejects with an ApiError (status 0: no answer). */
function upload<T>(url: string, file: File, headers: Record<string, string>, expected: readonly number[], onProgress: (percent: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.responseType = 'json';
    request.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(Math.round((event.loaded / event.total) * 100));
    });
    request.addEventListener('load', () => {
      const body = request.response as unknown;
      if (expected.includes(request.status) && body !== null) resolve(body as T);
      else reject(new ApiError(request.status, problemOf(request.status, body, request.getResponseHeader('Retry-After'))));
    });
    request.addEventListener('error', () => reject(new ApiError(0, undefined)));
    request.addEventListener('abort', () => reject(new ApiError(0, undefined)));
    const form = new FormData();
    form.append('file', file);
    request.send(form);
  });
}

/** The problem document of an error answer; a 429 without one still says when to try again. */
function problemOf(status: number, body: unknown, retryAfter: string | null): Problem | undefined {
  const problem = body !== null && typeof body === 'object' && 'code' in body ? (body as Problem) : undefined;
  if (status === 429 && retryAfter && /^\d+$/.test(retryAfter)) {
    const seconds = Number(retryAfter);
    const wait = `Too many imports just now: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
    return { status, code: problem?.code ?? 'rate_limited', ...problem, detail: problem?.detail ? `${problem.detail} ${wait}` : wait };
  }
  return problem;
}

/** The dry run: the report the import would give; creates nothing. */
export const checkImport = (file: File, options: ImportOptions, onProgress: (percent: number) => void): Promise<ImportReport> => upload(importUrl(options, true), file, {}, [200], onProgress);

/**
 * Starts the import in the background: 202 and the job. The same key for every retry of one
 * attempt, so that a second request (a double click, a retry after the answer was lost) answers
 * the first one's job instead of making a second campaign. 202 (or 200 for a repeated key) with the job.
 */
export async function startImport(file: File, options: ImportOptions, idempotencyKey: string, onProgress: (percent: number) => void): Promise<ImportJob> {
  const job = await upload<Partial<ImportJob>>(importUrl(options, false), file, { Prefer: 'respond-async', 'Idempotency-Key': idempotencyKey }, [200, 202], onProgress);
  if (job.id === undefined || job.status === undefined || job.progress === undefined) throw new ApiError(502, { status: 502, code: 'not_a_job', detail: 'The server did not answer with an import job.' });
  return job as ImportJob;
}

/** GET /api/imports/{importId} (typed by the generated schema; plain fetch, as the uploads use XMLHttpRequest, so the page's tests fake both). */
export async function getImportJob(id: string): Promise<ImportJob> {
  let response: Response;
  try {
    response = await fetch(jobPath(id), { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch {
    throw new ApiError(0, undefined);
  }
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok || body === undefined) throw new ApiError(response.status, problemOf(response.status, body ?? null, response.headers.get('Retry-After')));
  return body as ImportJob;
}

/** The job, read again every POLL_MS until it is done or failed. */
export function useImportJob(id: string | undefined) {
  return useQuery({
    queryKey: importJobKey(id ?? ''),
    queryFn: () => getImportJob(id!),
    enabled: id !== undefined,
    refetchInterval: (query) => (isFinished(query.state.data) ? false : POLL_MS),
    // A job the server does not know (another account's, or long gone) is not asked for again.
    retry: (failures, error) => failures < 3 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
  });
}

const JOB_STORAGE = 'loreforge:import-job';

/** The job under way in this tab, so that the import page shows it again on return. */
export const rememberedJob = {
  get: (): string | undefined => sessionStorage.getItem(JOB_STORAGE) ?? undefined,
  set: (id: string) => sessionStorage.setItem(JOB_STORAGE, id),
  forget: () => sessionStorage.removeItem(JOB_STORAGE),
};
