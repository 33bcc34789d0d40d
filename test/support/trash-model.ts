// The model of test/integration/trash-model.test.ts: what a campaign should hold after a sequence of
// creates, edits, deletes, restores and erases (CONTRACT "Things, thing types, arcs", "History and
// trash"), kept apart from the API so the test can compare the two after every step. Pure: no HTTP.

export type RichText = Record<string, unknown>[];
export type Visibility = 'all' | 'gm';
export type TrashKind = 'thing' | 'arc' | 'thing-type' | 'asset';
export type MentionKind = 'thing' | 'arc';

export const ARC_FIELDS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'] as const;
export type ArcField = (typeof ARC_FIELDS)[number];

export interface ModelThing {
  id: number;
  slug: string;
  /** Slugs it had before an explicit change, still answering with a 308 while it is live. */
  previousSlugs: Set<string>;
  typeId: number;
  name: string;
  description: RichText;
  visibility: Visibility;
  createdAt: string;
  /** A word only this record's text holds: search for it finds this record and nothing else. */
  word: string;
}

export interface ModelArc {
  id: number;
  slug: string;
  previousSlugs: Set<string>;
  name: string;
  fields: Record<ArcField, RichText>;
  visibility: Visibility;
  /** For a trashed arc: the parent it had when it was deleted. */
  parentArcId: number | null;
  createdAt: string;
  word: string;
}

export interface ModelType {
  id: number;
  name: string;
}

export interface ModelAsset {
  id: number;
  label: string;
  /** The asset as GET …/assets listed it. */
  body: Record<string, unknown>;
}

export interface ModelLink {
  thingId: number;
  arcId: number;
}

export interface TrashEntry {
  kind: TrashKind;
  id: number;
  /** The record's GET answer (raw JSON) just before the delete: a restore gives it back. */
  before: string;
  thing?: ModelThing;
  arc?: ModelArc;
  type?: ModelType;
  asset?: ModelAsset;
  /** A type's things, taken with it. */
  things: ModelThing[];
  /** The links the delete removed (of the thing, of the arc, of the type's things). */
  links: ModelLink[];
  /** An arc's children that the delete made top-level. */
  children: number[];
  /** The user id of who deleted it. */
  deletedBy?: string;
  /** A thing's or an arc's revision ids when it was deleted: they come back with it. */
  revisions?: number[];
  /** The user who wrote the newest of `revisions`. */
  newestAuthor?: string;
}

/** What a restore should answer besides the record. */
export interface RestoreOutcome {
  slug: string;
  restored: { things: number; arcs: number; links: number };
  /** Things and arcs that came back (for the search, backlink and 404 checks). */
  back: { kind: MentionKind; id: number }[];
}

/** The next free `base`, `base-2`, `base-3`… (CONTRACT "Wire format"; no 100-character cut: our slugs are short). */
export function nextFree(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

export class CampaignModel {
  readonly things = new Map<number, ModelThing>();
  readonly arcs = new Map<number, ModelArc>();
  readonly types = new Map<number, ModelType>();
  readonly assets = new Map<number, ModelAsset>();
  /** Live links in the order they were made. */
  links: ModelLink[] = [];
  /** Newest first. */
  trash: TrashEntry[] = [];
  /**
   * Links that a restore could not put back because their other end was in the trash: they wait
   * for it and come back when it does (so a thing and an arc deleted one after the other come back
   * linked, in either order), and are forgotten when it is erased.
   */
  waiting: ModelLink[] = [];
  /** Every thing and arc ever made, live or not (mentions may name any of them). */
  readonly everThings = new Map<number, ModelThing>();
  readonly everArcs = new Map<number, ModelArc>();
  readonly everTypes = new Map<number, ModelType>();
  /** Things and arcs whose existence changed in the current step: the step's targeted checks. */
  touched: { kind: MentionKind; id: number }[] = [];

  thingSlugTaken = (slug: string): boolean => [...this.things.values()].some((t) => t.slug === slug);
  arcSlugTaken = (slug: string): boolean => [...this.arcs.values()].some((a) => a.slug === slug);

  /**
   * A record takes `slug`: it stops being a previous slug of any other live record of its kind. A
   * trashed record keeps the previous slugs it had when deleted; its restore brings back those that
   * no live record holds by then.
   */
  claimSlug(kind: MentionKind, id: number, slug: string): void {
    const records = kind === 'thing' ? this.things : this.arcs;
    for (const record of records.values()) record.previousSlugs.delete(slug);
  }

  /** A restored record's previous slugs: those no live record of its kind holds, as current or previous slug. */
  private keepFreePreviousSlugs(kind: MentionKind, record: ModelThing | ModelArc): void {
    for (const slug of record.previousSlugs) if (this.slugAnswers(kind, slug)) record.previousSlugs.delete(slug);
  }

  addThing(thing: ModelThing): void {
    this.things.set(thing.id, thing);
    this.everThings.set(thing.id, thing);
    this.claimSlug('thing', thing.id, thing.slug);
  }

  addArc(arc: ModelArc): void {
    this.arcs.set(arc.id, arc);
    this.everArcs.set(arc.id, arc);
    this.claimSlug('arc', arc.id, arc.slug);
  }

  changeSlug(kind: MentionKind, id: number, slug: string): void {
    const record = kind === 'thing' ? this.things.get(id)! : this.arcs.get(id)!;
    if (record.slug === slug) return;
    record.previousSlugs.add(record.slug);
    record.slug = slug;
    this.claimSlug(kind, id, slug);
  }

  isLinked(thingId: number, arcId: number): boolean {
    return this.links.some((l) => l.thingId === thingId && l.arcId === arcId);
  }

  link(thingId: number, arcId: number): void {
    if (!this.isLinked(thingId, arcId)) this.links.push({ thingId, arcId });
  }

  unlink(thingId: number, arcId: number): void {
    this.links = this.links.filter((l) => !(l.thingId === thingId && l.arcId === arcId));
  }

  private takeLinks(keep: (l: ModelLink) => boolean): ModelLink[] {
    const taken = this.links.filter((l) => !keep(l));
    this.links = this.links.filter(keep);
    return taken;
  }

  /** Would `parentId` as the parent of `arcId` make a loop? */
  makesCycle(arcId: number, parentId: number): boolean {
    for (let at: number | null = parentId; at !== null; at = this.arcs.get(at)?.parentArcId ?? null) {
      if (at === arcId) return true;
    }
    return false;
  }

  deleteThing(id: number, before: string): TrashEntry {
    const thing = this.things.get(id)!;
    this.things.delete(id);
    const links = this.takeLinks((l) => l.thingId !== id);
    this.touched.push({ kind: 'thing', id });
    return this.pushEntry({ kind: 'thing', id, before, thing, things: [], links, children: [] });
  }

  deleteArc(id: number, before: string): TrashEntry {
    const arc = this.arcs.get(id)!;
    this.arcs.delete(id);
    const links = this.takeLinks((l) => l.arcId !== id);
    const children = [...this.arcs.values()].filter((a) => a.parentArcId === id).map((a) => a.id);
    for (const child of children) this.arcs.get(child)!.parentArcId = null;
    this.touched.push({ kind: 'arc', id });
    return this.pushEntry({ kind: 'arc', id, before, arc, things: [], links, children });
  }

  deleteType(id: number, before: string): TrashEntry {
    const type = this.types.get(id)!;
    this.types.delete(id);
    const things = [...this.things.values()].filter((t) => t.typeId === id).sort((a, b) => a.id - b.id);
    for (const thing of things) {
      this.things.delete(thing.id);
      this.touched.push({ kind: 'thing', id: thing.id });
    }
    const ids = new Set(things.map((t) => t.id));
    const links = this.takeLinks((l) => !ids.has(l.thingId));
    return this.pushEntry({ kind: 'thing-type', id, before, type, things, links, children: [] });
  }

  deleteAsset(id: number, before: string): TrashEntry {
    const asset = this.assets.get(id)!;
    this.assets.delete(id);
    return this.pushEntry({ kind: 'asset', id, before, asset, things: [], links: [], children: [] });
  }

  private pushEntry(entry: TrashEntry): TrashEntry {
    this.trash.unshift(entry);
    return entry;
  }

  /** What the trash list's `with` should say of an entry. */
  withCounts(entry: TrashEntry): { things: number; arcs: number; links: number } {
    // An arc's children are not taken along (they stay, top-level): `arcs` counts none.
    return { things: entry.things.length, arcs: 0, links: entry.links.length };
  }

  /** Why a restore must be refused (409 restore_container_first), or undefined. */
  restoreBlocked(entry: TrashEntry): string | undefined {
    if (entry.kind === 'thing' && !this.types.has(entry.thing!.typeId)) return 'restore_container_first';
    return undefined;
  }

  /** Brings an entry back as the CONTRACT says; the caller checked restoreBlocked first. */
  restore(entry: TrashEntry): RestoreOutcome {
    this.trash = this.trash.filter((e) => e !== entry);
    const back: RestoreOutcome['back'] = [];
    let links = 0;
    // The links the delete took and those that waited for what comes back: in place where the
    // other end exists, waiting for it where it is in the trash.
    const relink = (comingBack: (l: ModelLink) => boolean) => {
      const candidates = [...entry.links, ...this.waiting.filter(comingBack)];
      this.waiting = this.waiting.filter((l) => !comingBack(l));
      for (const l of candidates) {
        if (this.things.has(l.thingId) && this.arcs.has(l.arcId)) {
          if (!this.isLinked(l.thingId, l.arcId)) {
            this.links.push(l);
            links++;
          }
        } else if (!this.waiting.some((w) => w.thingId === l.thingId && w.arcId === l.arcId)) this.waiting.push(l);
      }
    };
    const thingBack = (thing: ModelThing) => {
      this.keepFreePreviousSlugs('thing', thing);
      thing.slug = nextFree(thing.slug, this.thingSlugTaken);
      this.addThing(thing);
      back.push({ kind: 'thing', id: thing.id });
    };
    switch (entry.kind) {
      case 'thing': {
        thingBack(entry.thing!);
        relink((l) => l.thingId === entry.id);
        this.touched.push(...back);
        return { slug: entry.thing!.slug, restored: { things: 0, arcs: 0, links }, back };
      }
      case 'arc': {
        const arc = entry.arc!;
        this.keepFreePreviousSlugs('arc', arc);
        arc.slug = nextFree(arc.slug, this.arcSlugTaken);
        if (arc.parentArcId !== null && !this.arcs.has(arc.parentArcId)) arc.parentArcId = null;
        this.addArc(arc);
        let arcs = 0;
        for (const childId of entry.children) {
          const child = this.arcs.get(childId);
          // "unless they were moved since": only children still top-level go back under it, and
          // none that has become an ancestor of it meanwhile (that would close a loop).
          if (child && child.parentArcId === null && !this.makesCycle(childId, arc.id)) {
            child.parentArcId = arc.id;
            arcs++;
          }
        }
        relink((l) => l.arcId === arc.id);
        back.push({ kind: 'arc', id: arc.id });
        this.touched.push(...back);
        return { slug: arc.slug, restored: { things: 0, arcs, links }, back };
      }
      case 'thing-type': {
        // A type's name is unique: one created meanwhile keeps it, the restored type is "<name> (restored)", "(restored 2)"…
        const type = entry.type!;
        const taken = (name: string) => [...this.types.values()].some((ty) => ty.name.toLowerCase() === name.toLowerCase());
        const original = type.name;
        for (let n = 2; taken(type.name); n++) type.name = n === 2 ? `${original} (restored)` : `${original} (restored ${n - 1})`;
        this.types.set(entry.id, type);
        // Its things keep their slugs where no live thing took them meanwhile; the others take the
        // next free one, free of those that came back with them too.
        const clashing = entry.things.filter((thing) => this.thingSlugTaken(thing.slug));
        for (const thing of entry.things) if (!clashing.includes(thing)) thingBack(thing);
        for (const thing of clashing) thingBack(thing);
        const ids = new Set(entry.things.map((thing) => thing.id));
        relink((l) => ids.has(l.thingId));
        this.touched.push(...back);
        return { slug: '', restored: { things: entry.things.length, arcs: 0, links }, back };
      }
      case 'asset': {
        this.assets.set(entry.id, entry.asset!);
        return { slug: '', restored: { things: 0, arcs: 0, links: 0 }, back };
      }
    }
  }

  /** Erases an entry for good; a type's takes the entries of its things deleted before it (they could never come back). */
  erase(entry: TrashEntry): void {
    const erased = this.trash.filter((e) => e === entry || (entry.kind === 'thing-type' && e.kind === 'thing' && e.thing!.typeId === entry.id));
    this.trash = this.trash.filter((e) => !erased.includes(e));
    const things = new Set(erased.flatMap((e) => [...(e.thing ? [e.thing.id] : []), ...e.things.map((t) => t.id)]));
    const arcs = new Set(erased.flatMap((e) => (e.arc ? [e.arc.id] : [])));
    this.waiting = this.waiting.filter((l) => !things.has(l.thingId) && !arcs.has(l.arcId));
  }

  /** Live records whose rich text mentions the target, with the fields that do (sorted). */
  backlinksOf(kind: MentionKind, id: number): { type: MentionKind; id: number; fields: string[] }[] {
    const out: { type: MentionKind; id: number; fields: string[] }[] = [];
    for (const thing of this.things.values()) {
      if (mentions(thing.description, kind, id)) out.push({ type: 'thing', id: thing.id, fields: ['description'] });
    }
    for (const arc of this.arcs.values()) {
      const fields = ARC_FIELDS.filter((f) => mentions(arc.fields[f], kind, id)).sort();
      if (fields.length > 0) out.push({ type: 'arc', id: arc.id, fields });
    }
    return out;
  }

  isLive(kind: MentionKind, id: number): boolean {
    return kind === 'thing' ? this.things.has(id) : this.arcs.has(id);
  }

  /** Is `slug` a live record's current or previous slug (so a GET by it does not answer 404)? */
  slugAnswers(kind: MentionKind, slug: string): boolean {
    const live = kind === 'thing' ? this.things : this.arcs;
    return [...live.values()].some((r) => r.slug === slug || r.previousSlugs.has(slug));
  }
}

/** The things and arcs a record's rich text mentions. */
export function mentionTargets(record: ModelThing | ModelArc): { kind: MentionKind; id: number }[] {
  const out: { kind: MentionKind; id: number }[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    const node = value as Record<string, unknown>;
    if (node.type === 'mention' && (node.targetType === 'thing' || node.targetType === 'arc')) out.push({ kind: node.targetType, id: node.targetId as number });
    walk(node.children);
  };
  walk('description' in record ? record.description : Object.values(record.fields));
  return out;
}

/** Does this rich text hold a mention of the target, at any depth? */
export function mentions(value: unknown, kind: MentionKind, id: number): boolean {
  if (Array.isArray(value)) return value.some((v) => mentions(v, kind, id));
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  if (node.type === 'mention' && node.targetType === kind && node.targetId === id) return true;
  return mentions(node.children, kind, id);
}
