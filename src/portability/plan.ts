// What an import will create, whatever the file was: the campaign's records with the ids of the
// file (or, for a vault, ids given while reading it). Ids are only keys here: the writer gives
// every record a new id and remaps mentions, parents, links and images to them. Each format's
// reader makes one (json-document/read.ts, vault/read.ts); write-plan.ts writes it.
import type { ArcTextField } from '../domain/arc-fields.js';
import { AppError, type FieldIssue } from '../domain/errors.js';
import type { Property, TypeField } from '../domain/properties.js';
import type { RichText } from '../domain/rich-text.js';
import type { Visibility } from '../db/schema.js';

export interface PlannedType {
  key: number;
  name: string;
  /** The type's declared fields (absent from documents exported before they existed: none). */
  fields: TypeField[];
  createdAt: string;
  updatedAt: string;
}

export interface PlannedThing {
  key: number;
  slug: string;
  typeKey: number;
  name: string;
  visibility: Visibility;
  description: RichText;
  /** Properties with links by the file's ids (remapped when written), tags and aliases. */
  properties: Property[];
  tags: string[];
  aliases: string[];
  createdAt: string;
  updatedAt: string;
  /** Where the record came from, for problems found while writing it: an entry, and a pointer into it. */
  origin?: { entry: string; path: string };
}

export interface PlannedArc {
  key: number;
  slug: string;
  name: string;
  parentKey: number | null;
  visibility: Visibility;
  fields: Record<ArcTextField, RichText>;
  /** As PlannedThing's. */
  properties: Property[];
  tags: string[];
  aliases: string[];
  createdAt: string;
  updatedAt: string;
  /** Where the record came from (see PlannedThing). */
  origin?: { entry: string; path: string };
}

export interface PlannedAsset {
  key: number;
  label: string;
  /** Its URL where it came from: image blocks and text naming it are rewritten to the new URL. */
  url: string | undefined;
  /** The archive entry with its bytes. */
  file: string;
  createdAt: string;
}

export interface ImportPlan {
  campaign: { slug: string | undefined; name: string; description: RichText; createdAt: string; updatedAt: string; defaultVisibility?: Visibility; origin?: { entry: string; path: string } };
  thingTypes: PlannedType[];
  things: PlannedThing[];
  arcs: PlannedArc[];
  links: { thingKey: number; arcKey: number; createdAt: string }[];
  assets: PlannedAsset[];
  /** What the import leaves out or changes, for the report: every one, naming its entry. */
  warnings: ImportWarning[];
  /** A vault from elsewhere: what cannot be read as it should (an image over the limit…) is left out with a warning, not refused. */
  lenient?: boolean;
}

/** One thing an import left out or changed (CONTRACT "Import from elsewhere"): the entry (a file of the zip, or the document) and what happened to it, in words. */
export interface ImportWarning {
  entry: string;
  problem: string;
}

/** At most this many problems are listed; the first is in the message. */
export const MAX_ISSUES = 20;

/** One error naming the entry and every problem found in it. */
export function importProblems(entry: string, issues: FieldIssue[]): AppError {
  const shown = issues.slice(0, MAX_ISSUES);
  const first = shown[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length === 2 ? '' : 's'})` : '';
  return new AppError(
    'invalid_import',
    `${entry}: ${first.path === '' ? '' : `${first.path} `}${first.message}${more}`,
    shown.map((issue) => ({ path: `${entry}#${issue.path}`, message: issue.message })),
  );
}

/** The index of an arc on a parent loop, if the arcs have one. */
export function arcCycle(arcs: PlannedArc[]): number | undefined {
  const parentOf = new Map(arcs.map((a) => [a.key, a.parentKey]));
  const index = new Map(arcs.map((a, i) => [a.key, i]));
  const settled = new Set<number>();
  for (const arc of arcs) {
    const path = new Set<number>();
    let current: number | null | undefined = arc.key;
    while (current !== null && current !== undefined && !settled.has(current)) {
      if (path.has(current)) return index.get(current);
      path.add(current);
      current = parentOf.get(current);
    }
    for (const key of path) settled.add(key);
  }
  return undefined;
}
