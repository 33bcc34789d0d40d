// A small JSON client for seeding and verification, and a bounded-concurrency map.

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

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

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const allHeaders: Record<string, string> = { ...headers };
    if (this.auth.token) allHeaders.authorization = `Bearer ${this.auth.token}`;
    if (this.auth.cookie) allHeaders.cookie = this.auth.cookie;
    if (body !== undefined) allHeaders['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: allHeaders,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** The request, which must answer `expected`; the parsed body. */
  async expect<T>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    if (response.status !== expected) {
      throw new Error(`${method} ${path}: expected ${expected}, got ${response.status}: ${response.text.slice(0, 500)}`);
    }
    return response.json as T;
  }
}

/** Registers a user and creates an API token; returns the token. */
export async function createAccount(baseUrl: string, label: string): Promise<{ email: string; token: string }> {
  const email = `bench-${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const registered = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'benchmark password 1234', name: 'Benchmark GM' }),
  });
  const registerText = await registered.text();
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registerText}`);
  const cookie = registered.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const api = new Api(baseUrl, { cookie });
  const created = await api.expect<{ token: string }>(201, 'POST', '/api/auth/tokens', { name: `benchmark ${label}` });
  return { email, token: created.token };
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
