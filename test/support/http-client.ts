// A small JSON client for tests and scripts that talk to a real server process over HTTP.
// No vitest imports: scripts use it too.

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** One request; a network failure (refused, reset, timed out) rejects, any HTTP answer resolves. */
export async function api(base: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let body: unknown = text;
  if (text !== '' && /json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body };
}

/** Registers an account through the API and returns an API token for it. */
export async function registerWithToken(base: string, email: string): Promise<string> {
  const registered = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple' }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
  const cookie = (registered.headers.get('set-cookie') ?? '').split(';')[0]!;
  const token = await fetch(`${base}/api/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'reliability' }),
  });
  if (token.status !== 201) throw new Error(`token creation answered ${token.status}: ${await token.text()}`);
  return ((await token.json()) as { token: string }).token;
}

/** Whether an error from fetch is a network failure (as opposed to a bug in the caller). */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));
}
