// A small JSON client for tests, scripts and benchmarks that talk to a real server over HTTP, and a
// bounded-concurrency map for seeding. No vitest imports.

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /**
   * The body parsed as JSON when the response says it is JSON, else the text. Loosely typed on
   * purpose, as in the tests: the callers' assertions are the types.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  token?: string;
  cookie?: string;
  json?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** One request; a network failure (refused, reset, timed out) rejects, any HTTP answer resolves. */
export async function api(base: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
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
  return { status: res.status, headers: res.headers, text, body };
}

/** The same calls bound to one server and one caller. */
export class Api {
  constructor(
    readonly baseUrl: string,
    private readonly auth: { token?: string; cookie?: string } = {},
  ) {}

  withToken(token: string): Api {
    return new Api(this.baseUrl, { token });
  }

  withBase(baseUrl: string): Api {
    return new Api(baseUrl, this.auth);
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    // Seeding and verification under load get a minute: the server may be saturated on purpose.
    return api(this.baseUrl, method, path, { ...this.auth, headers, timeoutMs: 60_000, ...(body === undefined ? {} : { json: body }) });
  }

  /** The request, which must answer `expected`; the parsed body. */
  async expect<T>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    if (response.status !== expected) {
      throw new Error(`${method} ${path}: expected ${expected}, got ${response.status}: ${response.text.slice(0, 500)}`);
    }
    return response.body as T;
  }
}

/** Registers an account through the API (POST /api/auth/register) and creates an API token for it. */
export async function registerWithToken(base: string, email: string, tokenName = 'toolkit'): Promise<string> {
  const registered = await api(base, 'POST', '/api/auth/register', { json: { email, password: 'correct horse battery staple', name: 'Test GM' } });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${registered.text}`);
  const cookie = registered.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return (await new Api(base, { cookie }).expect<{ token: string }>(201, 'POST', '/api/auth/tokens', { name: tokenName })).token;
}

/** A new account with a unique address (label in it) and an API token. */
export async function createAccount(base: string, label: string): Promise<{ email: string; token: string }> {
  const email = `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  return { email, token: await registerWithToken(base, email, label) };
}

/** Whether an error from fetch is a network failure (as opposed to a bug in the caller). */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));
}

/** Runs `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed) {
      const index = next++;
      if (index >= items.length) return;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
