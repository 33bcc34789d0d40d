// The web app's only way to the server: the public API, through a client generated from the
// OpenAPI document (schema.d.ts, `npm run generate:client`). Errors become ApiError, whose
// problem document says what went wrong and, for validation errors, where (`errors[].path`).
import createClient from 'openapi-fetch';
import type { operations, paths } from './schema';

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** The JSON body of an operation's answer with the given status. */
export type Answer<O extends keyof operations, S extends number = 200> = operations[O]['responses'] extends Record<S, { content: { 'application/json': infer T } }> ? T : never;

export type Me = Answer<'getCurrentUser'>;
export type Campaign = Answer<'getCampaign'>;
export type Thing = Answer<'getThing'>;
export type Arc = Answer<'getArc'>;
export type ThingType = Answer<'listThingTypes'>[number];
export type ThingSummary = Answer<'listThings'>[number];
export type ArcSummary = Answer<'listArcs'>[number];
export type Backlink = Answer<'listThingBacklinks'>[number];
export type SearchResults = Answer<'searchCampaign'>;
export type RichText = Thing['description'];

export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? (status === 0 ? 'The server cannot be reached.' : `The server answered ${status}.`));
  }

  get code(): string | undefined {
    return this.problem?.code;
  }

  /** The message for one field: an `errors[]` entry whose path ends with `/field`. */
  fieldMessage(field: string): string | undefined {
    return this.problem?.errors?.find((e) => e.path === `/${field}` || e.path.endsWith(`/${field}`))?.message;
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or an ApiError; a network failure is ApiError status 0. */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await withNetworkErrors(request);
  if (error !== undefined || !response.ok) throw new ApiError(response.status, error as Problem | undefined);
  return data as T;
}

/** Like call, with the answer's ETag (for If-Match). */
export async function callWithEtag<T>(request: Promise<FetchResult<T>>): Promise<{ data: T; etag: string | undefined }> {
  const { data, error, response } = await withNetworkErrors(request);
  if (error !== undefined || !response.ok) throw new ApiError(response.status, error as Problem | undefined);
  return { data: data as T, etag: response.headers.get('etag') ?? undefined };
}

async function withNetworkErrors<T>(request: Promise<FetchResult<T>>): Promise<FetchResult<T>> {
  try {
    return await request;
  } catch {
    throw new ApiError(0, undefined);
  }
}

/** A readable sentence for any error. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : 'Something went wrong.';
}
