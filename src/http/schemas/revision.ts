import { Type, type TSchema } from '@sinclair/typebox';
import type { RevisionDetail, RevisionSummary } from '../../db/repositories/revisions.js';
import type { Snapshot } from '../../history/snapshots.js';
import { RichTextOut, Slug, Timestamp, Visibility } from './common.js';
import { ArcRefSchema, storyFields } from './arc.js';
import { AliasesOut, PropertiesOut, TagsOut } from './properties.js';

// Absent from a revision kept before records had them (the record had none then).
const structureRecord = { properties: Type.Optional(PropertiesOut), tags: Type.Optional(TagsOut), aliases: Type.Optional(AliasesOut) };

const Author = Type.Union(
  [
    Type.Object({
      userId: Type.String({ description: 'the author’s user id' }),
      name: Type.String({ description: 'the author’s name now, or as it was when the revision was kept if the account is gone' }),
    }),
    Type.Null(),
  ],
  { description: 'who made the change; `null` when no one signed in made it (the command line, an import, or the state a record had before revisions were kept)' },
);

const RevisionName = Type.Union([Type.String(), Type.Null()], {
  description: 'the name a game master gave the revision (named revisions are kept for ever), or `null`',
});

const revisionFields = {
  id: Type.Integer({ description: 'the revision’s id' }),
  createdAt: Timestamp,
  author: Author,
  name: RevisionName,
  fields: Type.Array(Type.String(), {
    description: 'names of the record’s fields that changed from the revision before (every field for the first one)',
  }),
};

export const RevisionSummarySchema = Type.Object(revisionFields, {
  description:
    'One revision of a record: a burst of saves by one author within `REVISION_MERGE_SECONDS` (default 300) of the revision’s start is one revision, updated in place.',
});

export const ThingRevisionRecord = Type.Object(
  { name: Type.String(), slug: Slug, typeId: Type.Integer(), visibility: Visibility, description: RichTextOut, ...structureRecord },
  { description: 'the thing’s fields as its GET answered them to a game master after the change' },
);

const arcTexts = { ...storyFields, notes: RichTextOut };

export const ArcRevisionRecord = Type.Object(
  {
    name: Type.String(),
    slug: Slug,
    parentArcId: Type.Union([Type.Integer(), Type.Null()]),
    parentArc: Type.Union([ArcRefSchema, Type.Null()], { description: 'the parent arc as it was named when the revision was kept' }),
    visibility: Visibility,
    ...arcTexts,
    ...structureRecord,
  },
  { description: 'the arc’s fields as its GET answered them to a game master after the change' },
);

export const CampaignRevisionRecord = Type.Object(
  {
    name: Type.String(),
    slug: Slug,
    description: RichTextOut,
    defaultVisibility: Type.Unsafe<'all' | 'gm'>({ type: 'string', enum: ['all', 'gm'] }),
  },
  { description: 'the campaign’s fields as its GET answered them to a game master after the change' },
);

/** A revision with its snapshot of a record of this kind. */
export function revisionWith<T extends TSchema>(record: T) {
  return Type.Object({ ...revisionFields, record });
}

export const NameRevisionBody = Type.Object({
  name: Type.Union([Type.String(), Type.Null()], {
    description: 'a name of 1 to 100 characters (trimmed) keeps the revision for ever; `null` takes the name away (the revision is thinned like any other)',
  }),
});

export const RevisionIdParam = Type.String({ description: 'the revision’s id, a positive integer' });

export function presentRevisionSummary(revision: RevisionSummary) {
  return { id: revision.id, createdAt: revision.createdAt, author: revision.author, name: revision.name, fields: revision.fields };
}

export function presentRevision<T extends Snapshot>(revision: RevisionDetail<T>) {
  return { ...presentRevisionSummary(revision), record: revision.record };
}
