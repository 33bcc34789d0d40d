// @vitest-environment jsdom
// The import page as a user works it (pages/import.tsx), against a fake of the server's import
// routes (CONTRACT "Import from elsewhere"): the two uploads go through XMLHttpRequest, the job is
// read with fetch, so both are replaced by one handler that answers as the server does and records
// what was sent. Check shows the dry run's report; Import starts a job with a kept Idempotency-Key
// and reads it until done or failed; errors are said, with the focus on them.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRoot, type Root } from 'react-dom/client';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { ImportPage } from './import-page';
import { POLL_MS, type ImportJob, type ImportReport } from './api';

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  file: File | undefined;
}
type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network error';

let requests: Sent[];
let reply: (request: Sent) => Reply;
/** How long an upload takes to be answered, in ms. */
let uploadTime: number;

/** XMLHttpRequest as the page uses it: open, headers, upload progress, load or error. */
class FakeXhr {
  status = 0;
  response: unknown = null;
  responseType = '';
  private sent: Sent = { method: '', url: '', headers: {}, file: undefined };
  private responseHeaders: Record<string, string> = {};
  private listeners: Record<string, (() => void)[]> = {};
  private progress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void)[] = [];
  upload = { addEventListener: (type: string, listener: (event: { lengthComputable: boolean; loaded: number; total: number }) => void) => void (type === 'progress' && this.progress.push(listener)) };
  open(method: string, url: string) {
    this.sent = { ...this.sent, method, url };
  }
  setRequestHeader(name: string, value: string) {
    this.sent.headers[name.toLowerCase()] = value;
  }
  addEventListener(type: string, listener: () => void) {
    (this.listeners[type] ??= []).push(listener);
  }
  getResponseHeader(name: string): string | null {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  send(form: FormData) {
    const file = form.get('file');
    this.sent.file = file instanceof File ? file : undefined;
    requests.push(this.sent);
    setTimeout(() => {
      for (const listener of this.progress) listener({ lengthComputable: true, loaded: 50, total: 100 });
      const answer = reply(this.sent);
      if (answer === 'network error') return this.listeners['error']?.forEach((listener) => listener());
      this.status = answer.status;
      this.response = answer.body ?? null;
      this.responseHeaders = Object.fromEntries(Object.entries(answer.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      this.listeners['load']?.forEach((listener) => listener());
    }, uploadTime);
  }
}

function fakeFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const url = input instanceof Request ? new URL(input.url) : new URL(String(input), 'http://localhost');
  const sent: Sent = { method: input instanceof Request ? input.method : (init?.method ?? 'GET'), url: url.pathname + url.search, headers: {}, file: undefined };
  requests.push(sent);
  const answer = reply(sent);
  if (answer === 'network error') return Promise.reject(new TypeError('Failed to fetch'));
  return Promise.resolve(new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } }));
}

const report = (extra: Partial<ImportReport> = {}): ImportReport => ({ format: 'markdown', thingTypes: 2, things: 5, arcs: 0, links: 3, assets: 1, warnings: [], ...extra });
const campaign = { id: 7, slug: 'lost-mine-x1', name: 'Lost Mine' };
const job = (status: ImportJob['status'], done: number, total: number, extra: Partial<ImportJob> = {}): ImportJob => ({ id: 'j1', status, progress: { done, total }, createdAt: '2026-11-24T12:00:00.000Z', updatedAt: '2026-11-24T12:00:00.000Z', ...extra });
const problem = (status: number, code: string, detail: string) => ({ type: 'about:blank', status, code, title: code, detail });

let container: HTMLDivElement;
let root: Root;
let queryClient: QueryClient;
let router: ReturnType<typeof createMemoryRouter>;

function render(path = '/import') {
  queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(['campaigns'], []);
  router = createMemoryRouter(
    [
      { path: '/import', element: <ImportPage /> },
      { path: '/campaigns/:campaignSlug', element: <p>The campaign</p> },
    ],
    { initialEntries: [path] },
  );
  root.render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  requests = [];
  uploadTime = 0;
  reply = () => ({ status: 500 });
  sessionStorage.clear();
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  vi.stubGlobal('fetch', fakeFetch);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
});
afterEach(() => {
  root.unmount();
  container.remove();
  queryClient.clear();
  vi.unstubAllGlobals();
});

const until = <T,>(find: () => T | null | undefined | false, timeout = 4000) =>
  vi.waitFor(
    () => {
      const found = find();
      if (!found) throw new Error('not yet');
      return found;
    },
    { timeout, interval: 20 },
  );
const byText = (selector: string, text: string | RegExp) => [...container.querySelectorAll<HTMLElement>(selector)].find((e) => (typeof text === 'string' ? e.textContent === text : text.test(e.textContent ?? '')));
const button = (name: string) => byText('button', name) as HTMLButtonElement | undefined;
const heading = (text: string | RegExp) => byText('h2', text);

async function chooseFile(name = 'vault.zip', { gmOnly = false } = {}) {
  const input = await until(() => container.querySelector<HTMLInputElement>('input[type="file"]'));
  const file = new File(['PK fake bytes'], name, { type: 'application/zip' });
  Object.defineProperty(input, 'files', { value: [file], configurable: true });
  input.dispatchEvent(new Event('change', { bubbles: true }));
  if (gmOnly) {
    const box = byText('label', /Make everything GM-only/)!.querySelector('input')!;
    box.click();
  }
  await until(() => button('Check') && !button('Check')!.disabled);
}

async function checked(answer: ImportReport, options: { gmOnly?: boolean } = {}) {
  reply = (request) => (request.url.includes('dryRun=true') ? { status: 200, body: answer } : { status: 500 });
  render();
  await chooseFile('vault.zip', options);
  button('Check')!.click();
  return until(() => heading('Ready to import vault.zip'));
}

describe('the import page', () => {
  it('checks the file first: a dry run whose report it shows, every warning named by its file, the heading focused', async () => {
    const warnings = [
      { entry: 'Vault/.obsidian/workspace.json', problem: 'neither Markdown nor an image: not imported' },
      { entry: 'Vault/NPCs/Laiba.md', problem: 'front matter is not valid YAML: imported without it' },
    ];
    const ready = await checked(report({ warnings }));
    await until(() => document.activeElement === ready);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/api/campaigns/import?dryRun=true' });
    expect(requests[0]!.file?.name).toBe('vault.zip');
    expect(requests[0]!.headers['idempotency-key']).toBeUndefined();
    const section = ready.closest('section')!;
    expect([...section.querySelectorAll('.import-counts li')].map((li) => li.textContent)).toEqual(['2 thing types', '5 things', '0 story arcs', '3 links between things and arcs', '1 image']);
    expect(section.textContent).toContain('From a Markdown vault');
    expect(byText('h3', '2 warnings')).toBeDefined();
    expect([...section.querySelectorAll('.import-warnings li')].map((li) => li.textContent)).toEqual(warnings.map((w) => `${w.entry}: ${w.problem}`));
    expect(section.querySelector('details')).toBeNull();
    expect(button('Import')).toBeDefined();
  });

  it('groups hundreds of warnings by what happened, each group closed and counting its files, none left out', async () => {
    const warnings = [
      ...Array.from({ length: 590 }, (_, i) => ({ entry: `Vault/attachments/file-${i}.pdf`, problem: 'neither Markdown nor an image: not imported' })),
      ...Array.from({ length: 9 }, (_, i) => ({ entry: `Vault/NPCs/npc-${i}.md`, problem: `front matter is not valid YAML: line ${i + 1}` })),
      { entry: 'Vault/maps/huge.png', problem: 'an image over the upload limit: left out' },
    ];
    const ready = await checked(report({ warnings }));
    const section = ready.closest('section')!;
    expect(byText('h3', '600 warnings')).toBeDefined();
    const groups = [...section.querySelectorAll('details')];
    expect(groups.map((group) => group.querySelector('summary')!.textContent)).toEqual([
      'neither Markdown nor an image (590 files)',
      'front matter is not valid YAML (9 files)',
      'an image over the upload limit (1 file)',
    ]);
    expect(groups.every((group) => !group.open)).toBe(true);
    expect(section.querySelectorAll('details li')).toHaveLength(600);
    expect(groups[1]!.querySelector('li')!.textContent).toBe('Vault/NPCs/npc-0.md: line 1');
  });

  it.each<{ status: number; body: unknown; headers: Record<string, string>; says: string; title: string }>([
    { status: 400, body: problem(400, 'invalid_import', 'campaign.json: things[3].name: must be a string'), headers: {}, says: 'campaign.json: things[3].name: must be a string', title: 'This file cannot be imported' },
    { status: 413, body: undefined, headers: {}, says: 'The file is larger than this server takes.', title: 'This file cannot be imported' },
    { status: 403, body: { status: 403, code: 'premium_required' }, headers: {}, says: 'The file holds images, and images need premium (the administrator of this server grants it).', title: 'This file cannot be imported' },
    { status: 429, body: { status: 429, code: 'rate_limited', title: 'Too many requests' }, headers: { 'Retry-After': '30' }, says: 'Too many imports just now: try again in 30 seconds.', title: 'The check did not go through' },
  ])('says why a check was refused ($status), with the focus on the message', async ({ status, body, headers, says, title }) => {
    reply = () => ({ status, body, headers });
    render();
    await chooseFile();
    button('Check')!.click();
    const alert = await until(() => container.querySelector<HTMLElement>('[role="alert"]'));
    expect(alert.textContent).toBe(says);
    await until(() => document.activeElement === alert);
    expect(heading(title)).toBeDefined();
    expect(container.textContent).toContain('Nothing was imported.');
    expect(button('Import')).toBeUndefined();
  });

  it('imports in the background: one Idempotency-Key, progress read until done, then the report and the new campaign', async () => {
    const done = job('done', 40, 40, { campaign: campaign as ImportJob['campaign'], report: report({ warnings: [{ entry: 'Vault/a.pdf', problem: 'neither Markdown nor an image: not imported' }] }) });
    const states = [job('running', 0, 40), job('running', 22, 40), done];
    let reads = 0;
    await checked(report(), { gmOnly: true });
    reply = (request) => {
      if (request.method === 'POST') return { status: 202, body: job('queued', 0, 0), headers: { Location: '/api/imports/j1' } };
      if (request.url === '/api/imports/j1') return { status: 200, body: states[Math.min(reads++, states.length - 1)] };
      return { status: 404 };
    };
    const importButton = button('Import')!;
    importButton.click();
    importButton.click();
    await until(() => heading('Importing…'));
    const posts = requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.url)).toEqual(['/api/campaigns/import?dryRun=true&visibility=gm', '/api/campaigns/import?visibility=gm']);
    expect(posts[1]!.headers['prefer']).toBe('respond-async');
    expect(posts[1]!.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/);
    expect(router.state.location.search).toBe('?job=j1');
    expect(sessionStorage.getItem('loreforge:import-job')).toBe('j1');
    await until(() => document.activeElement === heading('Importing…'));
    const status = () => container.querySelector('.import-job [role="status"]')!.textContent;
    await until(() => status() === 'Import 50% done.');
    const bar = container.querySelector<HTMLProgressElement>('progress[aria-label="Import progress"]')!;
    expect([bar.value, bar.max]).toEqual([22, 40]);
    expect(container.querySelector('.import-progress')!.textContent).toContain('55%');

    const imported = await until(() => heading('Imported Lost Mine'));
    await until(() => document.activeElement === imported);
    expect(status()).toBe('Import done.');
    expect(container.textContent).toContain('neither Markdown nor an image: not imported');
    expect(queryClient.getQueryState(['campaigns'])?.isInvalidated).toBe(true);
    expect(sessionStorage.getItem('loreforge:import-job')).toBeNull();
    // Done: no more reading.
    const readsWhenDone = reads;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2.5));
    expect(reads).toBe(readsWhenDone);
    byText('a', 'Open Lost Mine')!.click();
    await until(() => router.state.location.pathname === '/campaigns/lost-mine-x1');
  });

  it('sends a retry after a lost answer with the same Idempotency-Key', async () => {
    await checked(report());
    reply = () => 'network error';
    button('Import')!.click();
    const alert = await until(() => container.querySelector<HTMLElement>('[role="alert"]'));
    expect(alert.textContent).toBe('The server cannot be reached: check the connection and try again.');
    await until(() => document.activeElement === alert);
    reply = (request) => (request.method === 'POST' ? { status: 202, body: job('queued', 0, 0) } : { status: 200, body: job('running', 1, 10) });
    button('Try again')!.click();
    await until(() => heading('Importing…'));
    const keys = requests.filter((r) => r.method === 'POST' && !r.url.includes('dryRun')).map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('after a failed job, says why; trying again is a new attempt with a new key', async () => {
    await checked(report());
    let posts = 0;
    reply = (request) => {
      if (request.method === 'POST') return { status: 202, body: job('queued', 0, 0, { id: `j${++posts}` }) };
      if (request.url === '/api/imports/j1') return { status: 200, body: job('failed', 3, 10, { error: problem(500, 'import_failed', 'The server stopped while importing.') }) };
      return { status: 200, body: job('running', 1, 10, { id: 'j2' }) };
    };
    button('Import')!.click();
    const failed = await until(() => heading('The import failed'));
    await until(() => document.activeElement === failed);
    expect(container.querySelector('[role="alert"]')!.textContent).toBe('The server stopped while importing.');
    expect(container.querySelector('.import-job [role="status"]')!.textContent).toBe('Import failed.');
    button('Try again')!.click();
    await until(() => router.state.location.search === '?job=j2' && heading('Importing…'));
    const keys = requests.filter((r) => r.method === 'POST' && !r.url.includes('dryRun')).map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('shows the job this tab started again on return, even without it in the address', async () => {
    sessionStorage.setItem('loreforge:import-job', 'j9');
    reply = (request) => (request.url === '/api/imports/j9' ? { status: 200, body: job('running', 3, 4, { id: 'j9' }) } : { status: 404 });
    render('/import');
    await until(() => container.querySelector('.import-job [role="status"]')?.textContent === 'Import 75% done.');
    expect(router.state.location.search).toBe('?job=j9');
    expect(container.textContent).toContain('You may leave this page');
  });

  it('remembers a job whose upload ended after the user left, without taking them back, and shows it on return', async () => {
    await checked(report());
    reply = (request) => (request.method === 'POST' ? { status: 202, body: job('queued', 0, 0, { id: 'j5' }) } : { status: 200, body: job('running', 1, 2, { id: 'j5' }) });
    uploadTime = 100;
    button('Import')!.click();
    await router.navigate('/campaigns/lost-mine-x1');
    await until(() => sessionStorage.getItem('loreforge:import-job') === 'j5');
    expect(router.state.location.pathname).toBe('/campaigns/lost-mine-x1');
    await router.navigate('/import');
    await until(() => container.querySelector('.import-job [role="status"]')?.textContent === 'Import 50% done.');
    expect(router.state.location.search).toBe('?job=j5');
  });

  it('says so when the job in the address is not one the server shows, and offers a new import', async () => {
    reply = () => ({ status: 404, body: problem(404, 'not_found', 'No such import.') });
    render('/import?job=nope');
    await until(() => heading('This import cannot be shown'));
    expect(container.querySelector('[role="alert"]')!.textContent).toBe('No such import.');
    button('Import a file')!.click();
    await until(() => button('Check'));
    expect(router.state.location.search).toBe('');
  });
});
