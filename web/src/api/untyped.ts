// Calls to routes the generated client does not know yet (the trash and revisions routes, built on
// the server alongside): the same answers and errors as `call`/`callWithEtag` in client.ts.
import { ApiError, type Problem } from './client';

export async function sendWithEtag<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: { body?: unknown; ifMatch?: string | undefined } = {}): Promise<{ data: T; etag: string | undefined }> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  } catch {
    throw new ApiError(0, undefined);
  }
  const text = await response.text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError(response.status, body as Problem | undefined);
  return { data: body as T, etag: response.headers.get('etag') ?? undefined };
}

export async function send<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: { body?: unknown; ifMatch?: string | undefined } = {}): Promise<T> {
  return (await sendWithEtag<T>(method, path, options)).data;
}
