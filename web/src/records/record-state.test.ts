// @vitest-environment jsdom
// The record's one editing state (record-state.ts) against an in-memory server with If-Match, driven
// by random sequences of what happens to it: typing in its fields, saves, reads (some of them
// started before a save and answered after it), another tab's writes, conflicts settled either way,
// a page reload. After every step: the record's query holds the server's latest acknowledged
// version, every field shows that version plus the unsent edits, "saved" is never claimed after a
// read for text the server does not hold, and at the end every word typed here that the user did
// not give up ("Take theirs") is on the server.
import { QueryClient } from '@tanstack/react-query';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { DRAFT_BOUND_MS, DRAFT_QUIET_MS, readDraft, writeAllDrafts, writeDraft } from '../editor/saver';
import { DRAFT_RECHECK_MS, RecordState, sameValue, sameVersion, type ServerVersion } from './record-state';

type Doc = { type: 'paragraph'; children: { text: string }[] }[];
type Rec = { id: number; name: string; hook: Doc; notes: Doc };
type Patch = { name: string; hook: Doc; notes: Doc };
const FIELDS = ['name', 'hook', 'notes'] as const;
type FieldName = (typeof FIELDS)[number];

const doc = (text: string): Doc => [{ type: 'paragraph', children: [{ text }] }];
const textOf = (value: unknown): string => (typeof value === 'string' ? value : ((value as Doc | undefined)?.[0]?.children[0]?.text ?? ''));
const withText = (field: FieldName, text: string): unknown => (field === 'name' ? text : doc(text));

class FakeServer {
  version = 1;
  data: Rec = { id: 7, name: 'Arc', hook: doc(''), notes: doc('') };
  saves = 0;
  get etag(): string {
    return `"7-${this.version}"`;
  }
  current(): ServerVersion<Rec> {
    return { data: structuredClone(this.data), etag: this.etag };
  }
  put(patch: Partial<Patch>, ifMatch: string | undefined): ServerVersion<Rec> {
    if (ifMatch !== undefined && ifMatch !== this.etag) throw new ApiError(412, { status: 412, code: 'precondition_failed' });
    this.data = { ...this.data, ...structuredClone(patch) };
    this.version += 1;
    this.saves += 1;
    return this.current();
  }
}

const KEY = ['campaign', 'c', 'arc', 'the-arc'] as const;

function setUp(server: FakeServer, draftOwner?: () => string | Promise<string>, keepsDrafts?: boolean) {
  const queryClient = new QueryClient();
  // Reads answered when the test says so (a read started before a save, answered after it).
  const held: (() => void)[] = [];
  let holdReads = false;
  const state = new RecordState<Rec, Patch>(
    KEY,
    'c.arc',
    {
      load: () => {
        const answer = server.current();
        if (!holdReads) return Promise.resolve(answer);
        return new Promise((resolve) => held.push(() => resolve(answer)));
      },
      save: (patch, ifMatch) => Promise.resolve().then(() => server.put(patch, ifMatch)),
      draftOwner,
      ...(keepsDrafts === undefined ? {} : { keepsDrafts }),
    },
    queryClient,
  );
  return {
    state,
    queryClient,
    hold: (on: boolean) => (holdReads = on),
    release: () => held.splice(0).forEach((resolve) => resolve()),
  };
}

/** A read of the record as the app does it: the query holds the answer, then the state receives it. */
async function read(tab: ReturnType<typeof setUp>, focused: boolean | 'text' = false, answer?: Promise<ServerVersion<Rec>>): Promise<void> {
  const version = await (answer ?? tab.state.fetch());
  tab.queryClient.setQueryData(KEY, version);
  tab.state.receive(version, () => focused);
}

type Step =
  | { kind: 'type'; field: FieldName; word: string }
  | { kind: 'type-ahead'; field: FieldName; word: string }
  | { kind: 'land' }
  | { kind: 'flush' }
  | { kind: 'read'; focused: boolean | 'text' }
  | { kind: 'stale-read' }
  | { kind: 'other-tab'; field: FieldName; word: string }
  | { kind: 'settle'; keepMine: boolean }
  | { kind: 'reload' };

const word = fc.stringMatching(/^[a-z]{3,6}$/);
const field = fc.constantFrom(...FIELDS);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('type' as const), field, word }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('type-ahead' as const), field, word }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'land' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'flush' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), focused: fc.constantFrom(false, true, 'text' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stale-read' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('other-tab' as const), field, word }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), keepMine: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

afterEach(() => localStorage.clear());

describe('one editing state per record', () => {
  it('holds the server’s latest acknowledged version plus the unsent edits, and loses no word it was not told to drop', async () => {
    let sequences = 0;
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        // The tabs of the sequence before are gone: nothing of theirs is written later.
        writeAllDrafts();
        localStorage.clear();
        const server = new FakeServer();
        let tab = setUp(server);
        await read(tab, false);
        /** Words typed here, per field, that must reach the server unless the user takes theirs. */
        const mine: Record<FieldName, Set<string>> = { name: new Set(), hook: new Set(), notes: new Set() };
        /** Words typed where the text is shown as read, waiting for the editor (records/record-page.tsx). */
        let ahead: { field: FieldName; word: string }[] = [];
        /** The editor opens and types them in on what it opens on; or the page, left, writes them in. */
        const land = (how: 'editor' | 'leaving') => {
          for (const { field: f, word: w } of ahead) {
            const patch = { [f]: withText(f, `${textOf(tab.state.shown(f))} ${w}`.trim()) };
            if (how === 'editor') tab.state.update(patch);
            else tab.state.edit(patch);
            mine[f].add(w);
          }
          ahead = [];
          tab.state.landed();
        };

        const check = () => {
          const { state, queryClient } = tab;
          // The record's query is the server's latest acknowledged version.
          expect(queryClient.getQueryData(KEY)).toEqual(state.server);
          for (const f of FIELDS) {
            // Every field shows the acknowledged version plus the unsent edits.
            const shown = f in state.pending ? state.pending[f] : state.server!.data[f];
            expect(state.value(f)).toEqual(shown);
            // Every word typed here is shown or on the server.
            for (const w of mine[f]) expect(`${textOf(state.value(f))} ${textOf(server.data[f])}`).toContain(w);
          }
          // Unsent edits are kept in the browser (or about to be, in the next idle moment or when the page goes away).
          if (Object.keys(state.pending).length > 0 && !state.draftUnwritten) expect(readDraft<Patch>('c.arc.7')?.patch).toEqual(state.pending);
          checks += 1;
        };

        for (const s of steps) {
          const { state } = tab;
          switch (s.kind) {
            case 'type': {
              const next = `${textOf(state.value(s.field))} ${s.word}`.trim();
              state.update({ [s.field]: withText(s.field, next) });
              mine[s.field].add(s.word);
              break;
            }
            case 'type-ahead':
              ahead.push({ field: s.field, word: s.word });
              state.typedAhead();
              break;
            case 'land':
              land('editor');
              break;
            case 'flush':
              await state.flush();
              break;
            case 'read': {
              const generation = state.generation;
              await read(tab, s.focused);
              // Keys waiting for the editor hold the version they were typed on: never swapped under them.
              if (ahead.length > 0) expect(state.generation).toBe(generation);
              // After a read, "saved" means the fields show exactly what the server holds.
              if (state.state === 'saved') for (const f of FIELDS) expect(sameValue(state.value(f), server.data[f])).toBe(true);
              break;
            }
            case 'stale-read': {
              tab.hold(true);
              const pending = state.fetch();
              tab.hold(false);
              const acknowledged = state.server;
              await state.flush();
              tab.release();
              await read(tab, false, pending);
              // An answer read before a save never replaces that save's answer.
              if (state.server !== acknowledged) expect(state.server!.etag).toBe(server.etag);
              break;
            }
            case 'other-tab': {
              const current = server.current();
              server.put({ [s.field]: withText(s.field, `${textOf(current.data[s.field])} ${s.word}`.trim()) }, current.etag);
              break;
            }
            case 'settle': {
              await state.flush();
              if (state.state !== 'conflict') break;
              const current = server.current();
              if (s.keepMine) await state.keepMine(current);
              else {
                state.takeTheirs(current);
                // The user chose to drop what only this tab had.
                for (const f of FIELDS) for (const w of [...mine[f]]) if (!textOf(current.data[f]).includes(w)) mine[f].delete(w);
                expect(state.state).toBe('saved');
                for (const f of FIELDS) expect(state.value(f)).toEqual(current.data[f]);
              }
              break;
            }
            case 'reload': {
              // The tab goes away without its answer (keepalive) or without saving; the next one starts from the server and the draft.
              land('leaving');
              window.dispatchEvent(new Event('pagehide'));
              tab = setUp(server);
              await read(tab, false);
              const offer = tab.state.offer;
              if (offer) {
                // Offered only where the draft differs from what the server holds now.
                for (const [f, v] of Object.entries(offer.patch)) expect(sameValue(v, server.data[f as FieldName])).toBe(false);
                tab.state.restoreOffer();
              } else {
                expect(readDraft('c.arc.7')).toBeUndefined();
                // No draft: what was typed here is on the server (or was given up).
                for (const f of FIELDS) for (const w of mine[f]) expect(textOf(server.data[f])).toContain(w);
              }
              break;
            }
          }
          check();
        }

        // Settle: save, keep mine on a conflict, save again; every word not given up is on the server.
        land('editor');
        await tab.state.flush();
        if (tab.state.state === 'conflict') await tab.state.keepMine(server.current());
        await tab.state.flush();
        expect(tab.state.state).toBe('saved');
        for (const f of FIELDS) for (const w of mine[f]) expect(textOf(server.data[f])).toContain(w);
        expect(Object.keys(tab.state.pending)).toEqual([]);
        sequences += 1;
      }),
      { numRuns: 300 },
    );
    expect(sequences).toBeGreaterThanOrEqual(300);
    expect(checks).toBeGreaterThan(300);
    console.info(`record state: ${sequences} sequences, ${checks} state checks`);
  });

  it('keeps the draft in the browser: the first keystroke after a quiet second at once, the rest of a burst once in idle time, everything when the page is hidden or closed', async () => {
    vi.useFakeTimers();
    try {
      const server = new FakeServer();
      const tab = setUp(server);
      await read(tab, false);
      await vi.advanceTimersByTimeAsync(DRAFT_QUIET_MS);
      const writes = vi.spyOn(Storage.prototype, 'setItem');
      // The first keystroke after a quiet second is written on the keystroke (a crash right after it loses nothing).
      tab.state.update({ hook: doc('O') });
      expect(writes).toHaveBeenCalledTimes(1);
      expect(readDraft<Patch>('c.arc.7')?.patch).toEqual({ hook: doc('O') });
      // The rest of the burst: nothing serialized on the keystrokes.
      for (const text of ['On', 'Onc', 'Once']) tab.state.update({ hook: doc(text) });
      expect(writes).toHaveBeenCalledTimes(1);
      // The idle moment (jsdom has no requestIdleCallback: a timer), at most 200 ms later, writes the latest text, once.
      await vi.advanceTimersByTimeAsync(DRAFT_BOUND_MS);
      expect(writes).toHaveBeenCalledTimes(2);
      expect(readDraft<Patch>('c.arc.7')?.patch).toEqual({ hook: doc('Once') });

      // Typed, then the page goes away before any idle moment: written synchronously on the way out.
      for (const [text, event] of [
        ['Once upon', () => window.dispatchEvent(new Event('pagehide'))],
        ['Once upon a', () => window.dispatchEvent(new Event('beforeunload'))],
        ['Once upon a time', () => tab.state.leave()],
      ] as const) {
        tab.state.update({ hook: doc(text) });
        expect(readDraft<Patch>('c.arc.7')?.patch).not.toEqual({ hook: doc(text) });
        event();
        expect(readDraft<Patch>('c.arc.7')?.patch).toEqual({ hook: doc(text) });
      }
      // Saved: the draft goes in the next idle moment (or on the way out), and nothing is offered back.
      await tab.state.flush();
      expect(tab.state.state).toBe('saved');
      await vi.advanceTimersByTimeAsync(DRAFT_BOUND_MS);
      expect(readDraft('c.arc.7')).toBeUndefined();
      writes.mockRestore();
    } finally {
      vi.useRealTimers();
    }
  });

  it('never lets the kept draft fall more than 200 ms behind a long burst of typing, whatever its rhythm', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 40 }), async (gaps) => {
        vi.useFakeTimers();
        try {
          const server = new FakeServer();
          const tab = setUp(server);
          await read(tab, false);
          let text = '';
          // When each text was typed; at any moment the browser's draft or the server must hold all but the last 200 ms of it.
          const kept = () => Math.max(textOf(readDraft<Patch>('c.arc.7')?.patch.hook).length, textOf(server.data.hook).length);
          const typedAt: { text: string; at: number }[] = [];
          for (const gap of gaps) {
            await vi.advanceTimersByTimeAsync(gap);
            text += 'x';
            tab.state.update({ hook: doc(text) });
            typedAt.push({ text, at: Date.now() });
            const stale = typedAt.filter((t) => t.text.length > kept());
            for (const t of stale) expect(Date.now() - t.at).toBeLessThanOrEqual(DRAFT_BOUND_MS);
          }
          await vi.advanceTimersByTimeAsync(DRAFT_BOUND_MS);
          expect(kept()).toBe(text.length);
          // Settled before the next run (which uses the same draft key).
          await tab.state.flush();
          await vi.advanceTimersByTimeAsync(DRAFT_BOUND_MS);
        } finally {
          // Nothing left waiting on this run's fake clock.
          writeAllDrafts();
          vi.useRealTimers();
          localStorage.clear();
        }
      }),
      { numRuns: 30 },
    );
  });

  it('offers back a draft after a reload only where it differs from what the server holds now', async () => {
    const server = new FakeServer();
    server.put({ hook: doc('already saved') }, undefined);
    writeDraft<Patch>('c.arc.7', { patch: { hook: doc('already saved') }, baseEtag: '"7-1"', at: new Date().toISOString() });
    const first = setUp(server);
    await read(first, false);
    expect(first.state.offer).toBeUndefined();
    expect(readDraft('c.arc.7')).toBeUndefined();

    writeDraft<Patch>('c.arc.7', { patch: { hook: doc('already saved'), notes: doc('never sent') }, baseEtag: server.etag, at: new Date().toISOString() });
    const second = setUp(server);
    await read(second, false);
    expect(second.state.offer?.patch).toEqual({ notes: doc('never sent') });
  });

  it('reads the record again after a reload whose draft the page that left may still be sending: the offer goes once the server holds it', async () => {
    vi.useFakeTimers();
    try {
      const server = new FakeServer();
      // Typed on version 1, then the page reloaded: its save (keepalive) has not reached the server yet.
      writeDraft<Patch>('c.arc.7', { patch: { hook: doc('typed before the reload') }, baseEtag: server.etag, at: new Date().toISOString() });
      const tab = setUp(server);
      const refresh = vi.spyOn(tab.state, 'refresh').mockImplementation(() => undefined);
      await read(tab, false);
      expect(tab.state.offer?.patch).toEqual({ hook: doc('typed before the reload') });
      await vi.advanceTimersByTimeAsync(DRAFT_RECHECK_MS[0]);
      expect(refresh).toHaveBeenCalledTimes(1);
      // The save lands; the next read shows it, and nothing is offered any more.
      server.put({ hook: doc('typed before the reload') }, '"7-1"');
      await read(tab, false);
      expect(tab.state.offer).toBeUndefined();
      expect(readDraft('c.arc.7')).toBeUndefined();
      expect(textOf(tab.state.shown('hook'))).toBe('typed before the reload');
      expect(tab.state.state).toBe('saved');
      await vi.advanceTimersByTimeAsync(DRAFT_RECHECK_MS.at(-1)!);
      expect(refresh).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps offering a draft the server never got, reading the record again a bounded number of times; one made on an older version is not re-read for', async () => {
    vi.useFakeTimers();
    try {
      const server = new FakeServer();
      writeDraft<Patch>('c.arc.7', { patch: { notes: doc('never sent') }, baseEtag: server.etag, at: new Date().toISOString() });
      const tab = setUp(server);
      const refresh = vi.spyOn(tab.state, 'refresh').mockImplementation(() => void read(tab, false));
      await read(tab, false);
      await vi.advanceTimersByTimeAsync(DRAFT_RECHECK_MS.at(-1)! + 1_000);
      expect(refresh).toHaveBeenCalledTimes(DRAFT_RECHECK_MS.length);
      expect(tab.state.offer?.patch).toEqual({ notes: doc('never sent') });

      localStorage.clear();
      server.put({ name: 'Renamed' }, undefined);
      writeDraft<Patch>('c.arc.7', { patch: { notes: doc('made on version 1') }, baseEtag: '"7-1"', at: new Date().toISOString() });
      const later = setUp(server);
      const laterRefresh = vi.spyOn(later.state, 'refresh');
      await read(later, false);
      expect(later.state.offer?.patch).toEqual({ notes: doc('made on version 1') });
      await vi.advanceTimersByTimeAsync(DRAFT_RECHECK_MS.at(-1)! + 1_000);
      expect(laterRefresh).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('weighs the offer on screen against a newer version: it never grows, and a kept draft with other edits in it stays', async () => {
    const server = new FakeServer();
    server.put({ notes: doc('agreed') }, undefined);
    writeDraft<Patch>('c.arc.7', { patch: { hook: doc('mine'), notes: doc('agreed') }, baseEtag: '"7-1"', at: new Date().toISOString() });
    const tab = setUp(server);
    await read(tab, false);
    expect(tab.state.offer?.patch).toEqual({ hook: doc('mine') });
    // Someone else changes the notes: the offer still holds only what it held.
    server.put({ notes: doc('changed by someone else') }, undefined);
    await read(tab, false);
    expect(tab.state.offer?.patch).toEqual({ hook: doc('mine') });
    // Another tab of the same author keeps its own edits under the same key; then the server gets
    // the offered text: the offer goes, the other tab's edits stay kept.
    writeDraft<Patch>('c.arc.7', { patch: { name: 'Typed in another tab' }, baseEtag: server.etag, at: new Date().toISOString() });
    server.put({ hook: doc('mine') }, undefined);
    await read(tab, false);
    expect(tab.state.offer).toBeUndefined();
    expect(readDraft<Patch>('c.arc.7')?.patch).toEqual({ name: 'Typed in another tab' });
  });

  it('in a view that cannot write (the player view) offers no draft, and removes none, even one the record it reads matches', async () => {
    const server = new FakeServer();
    writeDraft<Patch>('c.arc.7', { patch: { hook: doc('') }, baseEtag: '"7-0"', at: new Date().toISOString() });
    const player = setUp(server, undefined, false);
    await read(player, false);
    expect(player.state.offer).toBeUndefined();
    expect(readDraft<Patch>('c.arc.7')?.patch).toEqual({ hook: doc('') });
  });

  it('keeps drafts by author: a draft left in a shared browser is offered back to its author only, and another author’s never overwrites it', async () => {
    const server = new FakeServer();
    const ada = setUp(server, () => 'ada');
    await read(ada, false);
    ada.state.update({ hook: doc('Ada’s unsent words') });
    ada.state.writeDraftNow();
    expect(readDraft<Patch>('c.arc.7.by.ada')?.patch).toEqual({ hook: doc('Ada’s unsent words') });

    // Ada's tab closed before the save; Bo signs in on the same browser.
    const bo = setUp(server, () => Promise.resolve('bo'));
    await read(bo, false);
    await vi.waitFor(() => expect(bo.state.etag()).toBe(server.etag));
    await Promise.resolve();
    expect(bo.state.offer).toBeUndefined();
    bo.state.update({ notes: doc('Bo’s words') });
    bo.state.writeDraftNow();
    expect(readDraft<Patch>('c.arc.7.by.bo')?.patch).toEqual({ notes: doc('Bo’s words') });
    expect(readDraft<Patch>('c.arc.7.by.ada')?.patch).toEqual({ hook: doc('Ada’s unsent words') });

    const adaAgain = setUp(server, () => 'ada');
    await read(adaAgain, false);
    expect(adaAgain.state.offer?.patch).toEqual({ hook: doc('Ada’s unsent words') });
  });

  it('keeps what was typed before the author was known as soon as they are', async () => {
    const server = new FakeServer();
    let known: (id: string) => void = () => {};
    const tab = setUp(server, () => new Promise<string>((resolve) => (known = resolve)));
    await read(tab, false);
    tab.state.update({ hook: doc('typed at once') });
    tab.state.writeDraftNow();
    expect(readDraft('c.arc.7')).toBeUndefined();
    known('cy');
    await vi.waitFor(() => expect(readDraft<Patch>('c.arc.7.by.cy')?.patch).toEqual({ hook: doc('typed at once') }));
  });

  it('gives a draft kept by record alone (before drafts had authors) to the first author who opens the record', async () => {
    const server = new FakeServer();
    writeDraft<Patch>('c.arc.7', { patch: { notes: doc('from before') }, baseEtag: server.etag, at: new Date().toISOString() });
    const tab = setUp(server, () => 'dee');
    await read(tab, false);
    expect(tab.state.offer?.patch).toEqual({ notes: doc('from before') });
    expect(readDraft('c.arc.7')).toBeUndefined();
    expect(readDraft<Patch>('c.arc.7.by.dee')?.patch).toEqual({ notes: doc('from before') });
  });

  it('takes a newer version when nothing is unsent and the caret is not in what this tab wrote; shows the conflict when it is', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    server.put({ hook: doc('from the other tab') }, undefined);
    const generation = tab.state.generation;
    await read(tab, false);
    expect(tab.state.state).toBe('saved');
    expect(tab.state.generation).toBe(generation + 1);
    expect(tab.state.value('hook')).toEqual(doc('from the other tab'));
    expect(tab.queryClient.getQueryData(KEY)).toEqual(tab.state.server);

    // This tab writes and saves; its caret stays in its words when the other tab saves again.
    tab.state.update({ hook: doc('from this tab') });
    await tab.state.flush();
    server.put({ hook: doc('and again') }, undefined);
    await read(tab, true);
    expect(tab.state.state).toBe('conflict');
    expect(tab.state.mine()).toEqual({ hook: doc('from this tab'), notes: doc('') });
  });

  // The sequence that lost words (test/e2e/records.test.ts, "Keep mine"): the editor opened from the
  // text shown as read reads the record again; the newer version came back while the caret was in
  // the editor with nothing typed yet, and was shown as a conflict whose "mine" was the old text. The
  // dialog took the keys typed next, and "Keep mine" saved the old (empty) text over the newer one.
  it('an editor just opened, caret in it and nothing typed, takes the newer version: no conflict, the words typed next build on it', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    server.put({ hook: doc('from the other tab') }, undefined);
    tab.state.editorOpened();
    const generation = tab.state.generation;
    await read(tab, 'text');
    expect(tab.state.state).toBe('saved');
    expect(tab.state.generation).toBe(generation + 1);
    expect(tab.state.shown('hook')).toEqual(doc('from the other tab'));
    tab.state.update({ hook: doc('from the other tab, then this one') });
    await tab.state.flush();
    expect(tab.state.state).toBe('saved');
    expect(textOf(server.data.hook)).toBe('from the other tab, then this one');

    // The caret in another field (the title, a select: they do not keep a caret when they start again): shown as a conflict.
    server.put({ notes: doc('from the other tab') }, undefined);
    tab.state.editorClosed();
    tab.state.editorOpened();
    await read(tab, true);
    expect(tab.state.state).toBe('conflict');
  });

  it('keys typed where the text is shown as read hold a newer version back: the editor opens on the version they were typed on, and the save meets the conflict', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    tab.state.update({ notes: doc('saved before') });
    await tab.state.flush();
    tab.state.editorClosed();
    // Another page later: the text is shown as read, a key is typed on it before the editor is there.
    tab.state.editorOpened();
    tab.state.typedAhead();
    expect(tab.state.state).toBe('unsaved');
    server.put({ hook: doc('from the other tab') }, undefined);
    const generation = tab.state.generation;
    // Read while the caret is in the text shown as read, or already in the editor: either way held.
    await read(tab, false);
    await read(tab, 'text');
    expect(tab.state.generation).toBe(generation);
    expect(tab.state.state).toBe('unsaved');
    expect(tab.state.shown('hook')).toEqual(doc(''));
    // The editor lands the keys on what it opened on, then is told they have landed.
    tab.state.update({ hook: doc('typed ahead') });
    tab.state.landed();
    await tab.state.flush();
    expect(tab.state.state).toBe('conflict');
    expect(tab.state.mine()).toEqual({ hook: doc('typed ahead') });
    await tab.state.keepMine(server.current());
    expect(tab.state.state).toBe('saved');
    expect(textOf(server.data.hook)).toBe('typed ahead');
  });

  it('keys that changed nothing after all (a Delete at the end): the waiting ends, and a newer version is taken', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    tab.state.typedAhead();
    server.put({ hook: doc('from the other tab') }, undefined);
    await read(tab, false);
    expect(tab.state.state).toBe('unsaved');
    tab.state.landed();
    expect(tab.state.state).toBe('saved');
    await read(tab, 'text');
    expect(tab.state.state).toBe('saved');
    expect(tab.state.shown('hook')).toEqual(doc('from the other tab'));
  });

  it('a new ETag for the same version of the record (an arc whose linked things changed) is no conflict, even while typing', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    const generation = tab.state.generation;
    // An arc's ETag also follows what the answer embeds (its things, parent, children): `"id-version-a<digest>"`,
    // with `-br` when the answer was compressed; If-Match compares the id and version only.
    const linked: ServerVersion<Rec> = { data: { ...server.current().data }, etag: `"7-${server.version}-a0123456789abcdef-br"` };
    tab.queryClient.setQueryData(KEY, linked);
    tab.state.receive(linked, () => true);
    expect(tab.state.state).toBe('saved');
    expect(tab.state.generation).toBe(generation);
    expect(tab.state.server).toBe(linked);

    // Typing on goes on from there, and saves over the same version.
    tab.state.edit({ hook: doc('still mine') });
    await tab.state.flush();
    expect(server.saves).toBe(1);
    expect(textOf(server.data.hook)).toBe('still mine');

    // A change of the record itself, while an editor has the focus, is still shown as a conflict.
    server.put({ hook: doc('from the other tab') }, undefined);
    await read(tab, true);
    expect(tab.state.state).toBe('conflict');
  });

  it('reads the version of a record from any of its ETags', () => {
    expect(sameVersion('"7-3"', '"7-3-a0123456789abcdef"')).toBe(true);
    expect(sameVersion('"7-3-a0123456789abcdef-br"', '"7-3-gzip"')).toBe(true);
    expect(sameVersion('"7-3"', '"7-4"')).toBe(false);
    expect(sameVersion('"7-3"', '"17-3"')).toBe(false);
    expect(sameVersion('W/"p7-3-12"', 'W/"p7-3-12"')).toBe(false);
    expect(sameVersion(undefined, undefined)).toBe(false);
  });

  it('a change from outside the editors (a block copied back) keeps the unsent edits, restarts the editors and saves', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    tab.state.update({ hook: doc('typed') });
    const generation = tab.state.generation;
    const current = tab.state.value('hook') as Doc;
    tab.state.edit({ hook: [...current, ...doc('copied back')] });
    expect(tab.state.generation).toBe(generation + 1);
    expect(tab.state.value('hook')).toEqual([...doc('typed'), ...doc('copied back')]);
    await tab.state.flush();
    expect(tab.state.state).toBe('saved');
    expect(server.data.hook).toEqual([...doc('typed'), ...doc('copied back')]);
  });

  it('a version another write made (a revision restored) is shown at once and the next save builds on it', async () => {
    const server = new FakeServer();
    const tab = setUp(server);
    await read(tab, false);
    const restored = server.put({ hook: doc('the older text') }, undefined);
    const generation = tab.state.generation;
    tab.state.replaced(restored);
    expect(tab.state.generation).toBe(generation + 1);
    expect(tab.state.value('hook')).toEqual(doc('the older text'));
    expect(tab.queryClient.getQueryData(KEY)).toEqual(restored);
    tab.state.update({ notes: doc('after') });
    await tab.state.flush();
    expect(tab.state.state).toBe('saved');
    expect(server.data.hook).toEqual(doc('the older text'));
  });
});
