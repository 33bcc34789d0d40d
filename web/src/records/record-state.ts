// The ONE editing state of a record (a thing, an arc with its seven fields, the campaign's
// description), shared by every view of it in this tab: the rendered page, every editor opened on
// it, the saver and the draft kept in the browser. It is always the server's latest acknowledged
// version (body and ETag) plus the local edits not sent yet; nothing else. After each save the
// record's query holds the PUT's answer, so whatever opens next starts from what was saved, and a
// save is always based on the version the local edits were made on (If-Match): never a stale one.
//
// Saving as the user types: every change is kept in the browser (localStorage) in the next idle
// moment (at most DRAFT_IDLE_MS later, never on the keystroke itself: serializing a long text costs
// milliseconds; editor/saver.ts) and at once when the page is hidden, left or closed; it is sent shortly after typing
// stops, on leaving the page and when the tab is hidden. The draft stays until
// the server has acknowledged what it holds. A 412 is a conflict for the user to settle; a network
// failure, 429 or 5xx is retried with backoff. A newer version on the server (another tab, another
// user) is taken at once when there are no unsent edits, no keys wait for an editor (typed into the
// text shown as read) and the caret is not in what this tab wrote; an editor holding the caret
// takes the focus back in the newer text. Unsent edits or waiting keys keep the version they were
// made on (the save meets the conflict); the caret in text this tab wrote shows the conflict at
// once. The status never says "saved" for text the server does not hold.
//
// No React and no page layout here: records/use-record.tsx binds it to components.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { draftKept, keepDraftSoon, readDraft, writeDraft, type Draft, type SaveState } from '../editor/saver';

export interface ServerVersion<R> {
  data: R;
  etag: string | undefined;
}

export interface RecordSource<R, P> {
  /** Reads the record with its ETag. */
  load: () => Promise<ServerVersion<R>>;
  /** Sends changes with If-Match; answers the record as the server holds it now, with its ETag. */
  save: (patch: Partial<P>, ifMatch: string | undefined, init: { keepalive: boolean }) => Promise<ServerVersion<R>>;
  /**
   * Whose drafts these are: the signed-in user's id (at once if known, else once it is), so a draft
   * left in a shared browser is offered back to its author only and never saved by someone else.
   * Without it, drafts are kept by record alone.
   */
  draftOwner?: () => string | Promise<string>;
  /**
   * false in a view that cannot write (the player view): no draft is kept, offered or removed
   * there. The game master's drafts are theirs, weighed against what they can write, never
   * against the redacted record a player reads.
   */
  keepsDrafts?: boolean;
}

const IDLE_MS = 800;
/**
 * When a draft made on the version the server still holds is offered back, the page that left may
 * have sent it as it went (keepalive) and the server may not have it yet: the record is read again
 * after these delays, and the offer goes if the server then holds it.
 */
export const DRAFT_RECHECK_MS = [250, 1_000, 4_000] as const;
/** How often a record is read again while one of its editors is open (another tab, another user). */
export const REFRESH_WHILE_EDITING_MS = 10_000;
const CHANNEL = 'loreforge.records';

/** Rich text (blocks with children), not a list of tags, aliases or properties. */
const isRichText = (value: unknown): boolean => Array.isArray(value) && value.length > 0 && value.every((node) => typeof node === 'object' && node !== null && 'children' in node);

export const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export class RecordState<R extends Record<string, unknown>, P extends Record<string, unknown>> {
  /** The server's latest acknowledged version. */
  server: ServerVersion<R> | undefined;
  /** The ETag the local edits were made on (If-Match of the next save), and that version's body. */
  private base: string | undefined;
  private baseData: R | undefined;
  /** Local edits not acknowledged by the server yet. */
  pending: Partial<P> = {};
  /** Keys typed where the text is shown as read, not yet in an editor (so not in `pending`): edits all the same. */
  private waiting = false;
  /** When this tab last changed the record (performance.now()): the conflict dialog waits for a pause in the typing (records/use-record.tsx). */
  lastEdit = -Infinity;
  /** Whether this tab has written into the record since its editors opened (the caret then rests in its own words). */
  private written = false;
  state: SaveState = 'saved';
  error: ApiError | undefined;
  /** Changes whenever open editors must start again from new content (a restored draft, the server's newer version). */
  generation = 0;
  /** A draft kept in this browser that differs from what the server holds (after a reload or a crash). */
  offer: Draft<P> | undefined;
  /** Whether the unsent edits are newer than the draft kept in the browser (its write is scheduled). */
  draftUnwritten = false;
  /** Editors of the record open now (they refresh it while open). */
  editorsOpen = 0;
  /** Bumped on every change, for useSyncExternalStore. */
  version = 0;
  /** How many conflicts this state has met (the conflict dialog reads the server's version once for each). */
  conflicts = 0;
  /** Acknowledged saves so far: a read that started before one is older than it and is dropped. */
  private saves = 0;
  private inFlight: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retries = 0;
  private listeners = new Set<() => void>();
  private draftKey = '';
  private draftRechecks = false;

  constructor(
    readonly queryKey: QueryKey,
    private readonly draftPrefix: string,
    public source: RecordSource<R, P>,
    private readonly queryClient: QueryClient,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(): void {
    this.version += 1;
    for (const listener of this.listeners) listener();
  }

  private set(state: SaveState, error?: ApiError): void {
    if (state === 'conflict' && this.state !== 'conflict') this.conflicts += 1;
    this.state = state;
    this.error = error;
    this.changed();
  }

  /** The record's query function: an answer read before a save was acknowledged never replaces that save's answer. */
  async fetch(): Promise<ServerVersion<R>> {
    const seen = this.saves;
    const answer = await this.source.load();
    return this.saves !== seen && this.server ? this.server : answer;
  }

  /**
   * A version read from the server (the record's query). `editorHasFocus`: whether the caret is in
   * one of the record's fields (true), in one of its rich-text editors, which keep their caret when
   * they start again from new content ('text'), or elsewhere (false).
   */
  receive(answer: ServerVersion<R>, editorHasFocus: () => boolean | 'text'): void {
    if (!this.server) {
      this.server = answer;
      this.rebase(answer);
      if (this.source.keepsDrafts !== false) this.keepDraftsFor(`${this.draftPrefix}.${String(answer.data.id)}`);
      this.changed();
      return;
    }
    if (answer === this.server) return;
    if (this.holds(answer.etag)) {
      // The version the edits are made on. Only what its answer embeds may be new (an arc's things,
      // parent, children): shown, with no conflict and no restart of the editors.
      const embeds = answer.etag !== this.server.etag;
      this.server = answer;
      this.baseData = answer.data;
      if (embeds) this.changed();
      return;
    }
    // A newer version (or one held back until now). A save on its way decides; its answer follows.
    if (this.inFlight) return;
    this.server = answer;
    // Keys waiting for an editor were typed on the version shown: kept on it, like unsent edits.
    if (Object.keys(this.pending).length === 0 && !this.waiting && this.state !== 'conflict') {
      const focus = editorHasFocus();
      if (focus === true || (focus === 'text' && this.written)) {
        // The caret is in a field, or rests in text this tab wrote: show both rather than swap the text under it.
        this.set('conflict');
      } else {
        this.rebase(answer);
        this.generation += 1;
        // A draft offered back may be what this newer version holds (sent as its page left).
        this.reconsiderOffer();
        this.set('saved');
      }
      return;
    }
    this.changed();
  }

  /** Whether an ETag names the version the local edits are made on (the next save's If-Match). */
  private holds(etag: string | undefined): boolean {
    return etag === this.base || sameVersion(etag, this.base);
  }

  private rebase(answer: ServerVersion<R>): void {
    this.base = answer.etag;
    this.baseData = answer.data;
  }

  /** Ours, in a conflict: the unsent edits, or, with none, the rich-text fields of the version this tab shows. */
  mine(): Record<string, unknown> {
    if (Object.keys(this.pending).length > 0) return this.pending;
    const shown: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(this.baseData ?? {})) {
      if (Array.isArray(value) && value.every((node) => typeof node === 'object' && node !== null && 'children' in node)) shown[field] = value;
    }
    return shown;
  }

  editorOpened(): void {
    if (this.editorsOpen === 0) this.written = false;
    this.editorsOpen += 1;
    this.changed();
    this.refresh();
  }

  editorClosed(): void {
    this.writeDraftNow();
    this.editorsOpen -= 1;
    this.changed();
    void this.flush();
  }

  /** The ETag the next save is based on (for other writes to the record, like its slug). */
  etag(): string | undefined {
    return this.base;
  }

  /**
   * Where this record's drafts are kept: under the record and its author. Until the author is known
   * (a moment at most: the app asks who is signed in as it starts) edits are saved but not kept in
   * the browser; they are kept as soon as it is. A draft kept by record alone (before drafts had
   * authors) is taken over by the first author to open the record.
   */
  private keepDraftsFor(record: string): void {
    const owner = this.source.draftOwner?.();
    const start = (user: string | undefined) => {
      if (this.draftKey) return;
      this.draftKey = user === undefined ? record : `${record}.by.${user}`;
      if (user !== undefined && !readDraft(this.draftKey)) {
        const unowned = readDraft<P>(record);
        if (unowned) {
          writeDraft(this.draftKey, unowned);
          writeDraft(record, undefined);
        }
      }
      this.offerDraft();
      if (Object.keys(this.pending).length > 0) this.persist();
      this.changed();
    };
    if (owner === undefined || typeof owner === 'string') start(owner);
    else owner.then(start, () => start(undefined));
  }

  /** A draft left from an earlier visit is offered back only where it differs from what the server holds now. */
  private offerDraft(): void {
    const draft = readDraft<P>(this.draftKey);
    if (!draft || !this.server) return;
    const differing: Partial<P> = {};
    for (const [field, value] of Object.entries(draft.patch)) {
      if (!sameValue(value, this.server.data[field])) (differing as Record<string, unknown>)[field] = value;
    }
    if (Object.keys(differing).length === 0) {
      writeDraft(this.draftKey, undefined);
      return;
    }
    this.offer = { ...draft, patch: differing };
    if (!this.draftRechecks && sameVersion(draft.baseEtag, this.server.etag)) {
      this.draftRechecks = true;
      for (const ms of DRAFT_RECHECK_MS) setTimeout(() => this.offer && this.refresh(), ms);
    }
  }

  /**
   * The offer on screen, against a newer version the server answered: only what still differs is
   * offered; nothing, and the offer goes. The kept draft goes too if it holds nothing else the
   * server lacks (another tab of the same author may have written its own edits there since).
   */
  private reconsiderOffer(): void {
    const offer = this.offer;
    const server = this.server;
    if (!offer || !server) return;
    const differing = (patch: Partial<P>): Partial<P> => Object.fromEntries(Object.entries(patch).filter(([field, value]) => !sameValue(value, server.data[field]))) as Partial<P>;
    const left = differing(offer.patch);
    if (Object.keys(left).length > 0) {
      this.offer = { ...offer, patch: left };
      return;
    }
    this.offer = undefined;
    const kept = readDraft<P>(this.draftKey);
    if (kept && Object.keys(differing(kept.patch)).length === 0) writeDraft(this.draftKey, undefined);
  }

  /** The value a field shows: the unsent edit if there is one, else the server's. */
  value<K extends string>(field: K): unknown {
    return field in this.pending ? this.pending[field as keyof P] : this.server?.data[field];
  }

  /**
   * What an editor opens on: the unsent edit, else the version the next save is based on (while a
   * newer version is held back for unsent edits or waiting keys, the one they were made on).
   */
  shown<K extends string>(field: K): unknown {
    return field in this.pending ? this.pending[field as keyof P] : this.baseData?.[field];
  }

  /** A key that writes was typed where the text is shown as read, before its editor was there. */
  typedAhead(): void {
    this.waiting = true;
    if (this.state !== 'conflict') this.set('unsaved');
  }

  /**
   * The editor has taken the keys that waited for it (called a task later, once it has reported what
   * they changed): with nothing unsent after all, a newer version held back for them is read again.
   */
  landed(): void {
    if (!this.waiting) return;
    this.waiting = false;
    if (Object.keys(this.pending).length > 0) return;
    if (this.state === 'unsaved') this.set('saved');
    if (this.server && !this.holds(this.server.etag)) this.refresh();
  }

  restoreOffer(): void {
    const offer = this.offer;
    if (!offer) return;
    this.offer = undefined;
    this.base = offer.baseEtag ?? this.base;
    this.generation += 1;
    this.update(offer.patch);
  }

  dropOffer(): void {
    this.offer = undefined;
    if (this.draftKey && Object.keys(this.pending).length === 0) writeDraft(this.draftKey, undefined);
    this.changed();
  }

  /** The draft is to be written: in the next idle moment, or at once if the page goes away first. */
  private persist(): void {
    if (!this.draftKey) return;
    this.draftUnwritten = true;
    keepDraftSoon(this);
  }

  /** Writes the draft now (the page is hidden, left or closed; or the idle moment came). */
  writeDraftNow(): void {
    if (!this.draftUnwritten) return;
    this.draftUnwritten = false;
    draftKept(this);
    if (this.draftKey) writeDraft(this.draftKey, { patch: this.pending, baseEtag: this.base, at: new Date().toISOString() });
  }

  /** Queues a change (kept in the browser at once) and saves it shortly. */
  update(patch: Partial<P>): void {
    this.lastEdit = performance.now();
    if (Object.keys(patch).length > 0) this.written = true;
    this.pending = { ...this.pending, ...patch };
    this.persist();
    this.schedule(IDLE_MS);
    // More typing in a text that is already unsaved changes nothing another view shows (the editor
    // has it): no re-render of the page on the keystroke.
    if (this.state === 'unsaved' && Object.values(patch).every(isRichText)) return;
    if (this.state !== 'conflict') this.set('unsaved');
    else this.changed();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), ms);
  }

  /** Saves what is queued now. */
  async flush(keepalive = false): Promise<void> {
    clearTimeout(this.timer);
    // One save at a time, each on the answer of the one before.
    while (this.inFlight) await this.inFlight;
    const sent = this.pending;
    if (Object.keys(sent).length === 0 || this.state === 'conflict') return;
    const run = (async () => {
      this.set('saving', this.error);
      try {
        const answer = await this.source.save(sent, this.base, { keepalive });
        this.retries = 0;
        // Keep whatever changed while the request was out.
        const rest: Partial<P> = {};
        for (const [key, value] of Object.entries(this.pending)) if (sent[key] !== value) (rest as Record<string, unknown>)[key] = value;
        this.pending = rest;
        this.acknowledge(answer);
        this.persist();
        this.set(Object.keys(rest).length > 0 ? 'unsaved' : 'saved');
        if (Object.keys(rest).length > 0) this.schedule(IDLE_MS);
      } catch (e) {
        const failure = e instanceof ApiError ? e : new ApiError(0, undefined);
        if (failure.status === 412) this.set('conflict', failure);
        else if (failure.status === 0 || failure.status >= 500 || failure.status === 429) {
          this.retries += 1;
          this.set('offline', failure);
          this.schedule(Math.min(30_000, 1000 * 2 ** this.retries));
        } else this.set('error', failure);
      }
    })();
    this.inFlight = run;
    await run;
    if (this.inFlight === run) this.inFlight = undefined;
  }

  /** A version the server acknowledged (a save's answer, or another write's on this record): the record's query holds it. */
  acknowledge(answer: ServerVersion<R>): void {
    this.saves += 1;
    this.server = answer;
    this.rebase(answer);
    this.queryClient.setQueryData(this.queryKey, answer);
    // Everything else the write may have changed (names in lists, renderings, backlinks).
    void this.queryClient.invalidateQueries({ queryKey: this.queryKey.slice(0, 2), predicate: (q) => !sameValue(q.queryKey, this.queryKey) });
    announce(this.queryKey, answer.etag);
    this.changed();
  }

  /**
   * A change made outside the editors (a block copied back from the record's history): queued and
   * saved like typing, on top of the unsent edits, and the open editors start again from it.
   */
  edit(patch: Partial<P>): void {
    this.generation += 1;
    this.update(patch);
  }

  /** A version another write made (a revision restored): acknowledged, and every field shows it at once. */
  replaced(answer: ServerVersion<R>): void {
    this.generation += 1;
    this.acknowledge(answer);
  }

  /** After a conflict: save ours over the version the server has now. */
  async keepMine(current: ServerVersion<R>): Promise<void> {
    // Nothing unsent: what this tab showed is what the user keeps.
    if (Object.keys(this.pending).length === 0) this.pending = this.mine() as Partial<P>;
    this.server = current;
    this.rebase(current);
    this.persist();
    this.queryClient.setQueryData(this.queryKey, current);
    this.set('unsaved');
    await this.flush();
  }

  /** After a conflict: forget ours and take the version the server has now. */
  takeTheirs(current: ServerVersion<R>): void {
    clearTimeout(this.timer);
    this.pending = {};
    this.written = false;
    this.persist();
    this.server = current;
    this.rebase(current);
    this.queryClient.setQueryData(this.queryKey, current);
    this.generation += 1;
    this.set('saved');
  }

  /** Leaving the page or hiding the tab saves at once (keepalive lets the request outlive the page). */
  leave(): void {
    this.writeDraftNow();
    void this.flush(true);
  }

  /** Reads the record again now (a newer version elsewhere). */
  refresh(): void {
    void this.queryClient.refetchQueries({ queryKey: this.queryKey, exact: true });
  }
}

// Every record state of this tab, by query key: the same record is the same state whichever page,
// editor or dialog shows it, and unsent edits outlive a page that is left (they are retried).
const states = new Map<string, RecordState<Record<string, unknown>, Record<string, unknown>>>();

export function recordState<R extends Record<string, unknown>, P extends Record<string, unknown>>(queryKey: QueryKey, draftPrefix: string, source: RecordSource<R, P>, queryClient: QueryClient): RecordState<R, P> {
  const id = JSON.stringify(queryKey);
  let state = states.get(id) as RecordState<R, P> | undefined;
  if (!state) {
    state = new RecordState<R, P>(queryKey, draftPrefix, source, queryClient);
    states.set(id, state as unknown as RecordState<Record<string, unknown>, Record<string, unknown>>);
  }
  state.source = source;
  return state;
}

/** The editing state of a record if one exists in this tab (another view of the page may hold it). */
export function existingRecordState(queryKey: QueryKey): RecordState<Record<string, unknown>, Record<string, unknown>> | undefined {
  return states.get(JSON.stringify(queryKey));
}

/** The record query's function for a key that may have an editing state: never older than an acknowledged save. */
export function fetchRecord<R>(queryKey: QueryKey, load: () => Promise<ServerVersion<R>>): Promise<ServerVersion<R>> {
  const state = states.get(JSON.stringify(queryKey));
  return state ? (state.fetch() as Promise<ServerVersion<R>>) : load();
}

// Other tabs of this browser hear of each acknowledged save; a hidden one reads the record again at
// once (a visible one does on its interval, so the text never changes under the caret unasked).
let channel: BroadcastChannel | undefined;
function openChannel(): BroadcastChannel | undefined {
  if (channel || typeof BroadcastChannel === 'undefined') return channel;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent<{ key: string; etag: string | undefined }>) => {
    const state = states.get(event.data.key);
    if (state?.server && state.server.etag !== event.data.etag && document.visibilityState === 'hidden') state.refresh();
  };
  return channel;
}

/**
 * Whether two ETags name the same version of the record: `"id-version"`, which an arc's ETag follows
 * with a digest of what its answer embeds (`-a<hex>`) and a compressed answer with its encoding
 * (`-br`, `-gzip`). If-Match compares the id and version only, as this does.
 */
export function sameVersion(a: string | undefined, b: string | undefined): boolean {
  const own = (etag: string | undefined) => /^(?:W\/)?"(\d+-\d+)(?:-[^"]*)?"$/.exec(etag ?? '')?.[1];
  const x = own(a);
  return x !== undefined && x === own(b);
}

function announce(queryKey: QueryKey, etag: string | undefined): void {
  openChannel()?.postMessage({ key: JSON.stringify(queryKey), etag });
}

/** Starts listening to the other tabs (once a record is being edited). */
export function listenToOtherTabs(): void {
  openChannel();
}
