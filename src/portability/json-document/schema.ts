// The `loreforge-campaign` document (CONTRACT "Portability"): the json export, and campaign.json in
// an archive. One schema for its three users, so they cannot drift: the OpenAPI document (the
// export's answer, the import's body), the writer (write.ts: its records are `Written<…>` of these
// types, every key present) and the reader (read.ts: test/unit/campaign-document-schema.test.ts
// checks that every key it reads is here and that a written document passes this schema).
//
// A key marked optional is one the reader accepts absent: documents exported before it existed.
// The writer always writes it. The reader's own checks (domain/input.ts, domain/properties.ts) stay
// the judges of a value: they report every problem with its pointer, as the API does.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import { Name, Slug, Timestamp, Visibility as VisibilityOut } from '../../http/schemas/common.js';
import { AliasesOut, FieldsOut, PropertiesOut, TagsOut } from '../../http/schemas/properties.js';

export const DOCUMENT_FORMAT = 'loreforge-campaign';
export const DOCUMENT_VERSION = 1;

/** A key the reader takes absent (documents from before it existed), as `reading`. */
function since<T extends TSchema>(schema: T, reading: string) {
  const said = schema.description === undefined ? '' : `${schema.description.replace(/\.$/, '')}. `;
  return Type.Optional({ ...schema, description: `${said}Absent in older documents: ${reading}.` } as T);
}

// Unions of literals rather than the API's Type.Unsafe enums: TypeBox's Value.Check can check these.
const Visibility = Type.Union([Type.Literal('all'), Type.Literal('gm')], { description: VisibilityOut.description });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('gm'), Type.Literal('player')]);

/** Stored rich text, written as it is stored. */
const RichText = Type.Array(Type.Unknown(), { description: 'rich text as the API sends it to a game master (secret blocks included)' });

const Id = Type.Integer({ minimum: 1, description: 'the record’s id in the exporting service; an import gives new ids and remaps every reference' });

/** A record's properties, tags and aliases. */
const structure = {
  properties: since(PropertiesOut, 'none'),
  tags: since(TagsOut, 'none'),
  aliases: since(AliasesOut, 'none'),
};

export const DocumentCampaign = Type.Object(
  {
    id: Id,
    slug: since(Slug, 'one made from the name'),
    name: Name,
    userId: Type.String({ description: 'the owner (an import makes the caller the owner)' }),
    defaultVisibility: since(Visibility, '`all`'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    description: since(RichText, 'empty'),
  },
  { description: 'The campaign' },
);

export const DocumentThingType = Type.Object({
  id: Id,
  name: Type.String({ description: 'unique in the campaign ignoring case' }),
  fields: since(FieldsOut, 'none'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const DocumentThing = Type.Object({
  id: Id,
  slug: Slug,
  typeId: Type.Integer({ description: 'the id of one of `thingTypes`' }),
  name: Name,
  visibility: since(Visibility, '`all`'),
  ...structure,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  description: since(RichText, 'empty'),
});

const arcTexts = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, since(RichText, 'empty')])) as Record<ArcTextField, ReturnType<typeof since<typeof RichText>>>;

export const DocumentArc = Type.Object({
  id: Id,
  slug: Slug,
  name: Name,
  parentArcId: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'the id of another of `arcs` (no loops), or null (absent: null)' })),
  visibility: since(Visibility, '`all`'),
  ...structure,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  ...arcTexts,
});

export const DocumentLink = Type.Object({
  thingId: Type.Integer({ description: 'the id of one of `things`' }),
  arcId: Type.Integer({ description: 'the id of one of `arcs`' }),
  createdAt: Timestamp,
});

export const DocumentAsset = Type.Object({
  id: Id,
  imageId: Type.String({ description: 'the image’s id at the exporting service’s image host' }),
  label: Name,
  url: Type.String({ description: 'where the image was served; image blocks and text naming it are rewritten to the new URL' }),
  contentType: Type.String(),
  byteSize: Type.Integer(),
  file: Type.String({ description: 'where an archive holds the bytes (`images/<imageId>.<ext>`); a json document carries none' }),
  createdAt: Timestamp,
});

export const DocumentMember = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  email: Type.String(),
  role: Role,
  joinedAt: Timestamp,
});

export const CampaignDocument = Type.Object(
  {
    format: Type.Literal(DOCUMENT_FORMAT),
    version: Type.Literal(DOCUMENT_VERSION),
    exportedAt: Timestamp,
    campaign: DocumentCampaign,
    thingTypes: Type.Array(DocumentThingType),
    things: Type.Array(DocumentThing, { description: 'GM-only things and secret blocks included' }),
    arcs: Type.Array(DocumentArc),
    links: Type.Array(DocumentLink, { description: 'thing–arc links, each pair once' }),
    assets: since(Type.Array(DocumentAsset, { description: 'uploaded images' }), 'none'),
    members: since(Type.Array(DocumentMember, { description: 'not imported (an import lists how many were left out)' }), 'none'),
  },
  { description: 'The `json` export: every record, id, slug, field and timestamp of the campaign' },
);

/** A record as the writer writes it: every key present, optional ones too. */
export type Written<T extends TSchema> = Required<Static<T>>;
