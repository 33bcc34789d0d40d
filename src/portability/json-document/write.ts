// Writing the `loreforge-campaign` document (schema.ts) as a stream of text: records are read in
// pages by id and written as they come, so an export of any size holds one page at a time. Stored
// rich text is already JSON and goes out as it is, never parsed and serialized again; the rest of
// each record is typed by the schema (`Written<…>`), so a key the schema has cannot be left out.
import type { Db } from '../../db/database.js';
import { arcPages, arcThingPages, assetPages, listMembersByJoining, thingPages } from '../../db/repositories/campaign-export.js';
import { listThingTypes } from '../../db/repositories/thing-types.js';
import type { ArcRow, AssetRow, CampaignRow, ThingRow, ThingTypeRow } from '../../db/schema.js';
import type { MemberListing } from '../../db/repositories/members.js';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import { parseStoredFields } from '../../domain/properties.js';
import { emptyRichText } from '../../domain/rich-text.js';
import { assetFile, structureOf } from '../stored.js';
import {
  DOCUMENT_FORMAT,
  DOCUMENT_VERSION,
  type DocumentArc,
  type DocumentAsset,
  type DocumentCampaign,
  type DocumentLink,
  type DocumentMember,
  type DocumentThing,
  type DocumentThingType,
  type Written,
} from './schema.js';

const str = JSON.stringify;
const EMPTY_RICH_TEXT_JSON = str(emptyRichText());

function richTextJson(stored: string | null): string {
  return stored === null || stored === 'null' ? EMPTY_RICH_TEXT_JSON : stored;
}

/** An object's JSON with stored rich text appended as more keys (`,"key":<json>` each). */
function withRichText(head: object, texts: string): string {
  return `${str(head).slice(0, -1)}${texts}}`;
}

function campaignJsonOf(c: CampaignRow): string {
  const head: Omit<Written<typeof DocumentCampaign>, 'description'> = {
    id: c.id,
    slug: c.slug,
    name: c.name,
    userId: c.user_id,
    defaultVisibility: c.default_visibility,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
  return withRichText(head, `,"description":${richTextJson(c.description)}`);
}

function thingTypeJson(t: ThingTypeRow): string {
  const record: Written<typeof DocumentThingType> = { id: t.id, name: t.name, fields: parseStoredFields(t.fields), createdAt: t.created_at, updatedAt: t.updated_at };
  return str(record);
}

function thingJson(t: ThingRow): string {
  const head: Omit<Written<typeof DocumentThing>, 'description'> = {
    id: t.id,
    slug: t.slug,
    typeId: t.type_id,
    name: t.name,
    visibility: t.visibility,
    ...structureOf(t),
    createdAt: t.created_at,
    updatedAt: t.updated_at,
  };
  return withRichText(head, `,"description":${richTextJson(t.description)}`);
}

function arcJson(a: ArcRow): string {
  const head: Omit<Written<typeof DocumentArc>, ArcTextField> = {
    id: a.id,
    slug: a.slug,
    name: a.name,
    parentArcId: a.parent_arc_id,
    visibility: a.visibility,
    ...structureOf(a),
    createdAt: a.created_at,
    updatedAt: a.updated_at,
  };
  return withRichText(head, ARC_TEXT_FIELDS.map((field) => `,${str(field)}:${richTextJson(a[field])}`).join(''));
}

function linkJson(l: { thing_id: number; arc_id: number; created_at: string }): string {
  const record: Written<typeof DocumentLink> = { thingId: l.thing_id, arcId: l.arc_id, createdAt: l.created_at };
  return str(record);
}

function assetJson(s: AssetRow): string {
  const record: Written<typeof DocumentAsset> = {
    id: s.id,
    imageId: s.image_id,
    label: s.label,
    url: s.url,
    contentType: s.content_type,
    byteSize: s.byte_size,
    file: assetFile(s),
    createdAt: s.created_at,
  };
  return str(record);
}

function memberJson(m: MemberListing): string {
  const record: Written<typeof DocumentMember> = { userId: m.user_id, name: m.name, email: m.email, role: m.role, joinedAt: m.joined_at };
  return str(record);
}

/** A top-level array of the document, one record a line, written page by page. */
async function* jsonArray<R>(key: string, pages: AsyncIterable<readonly R[]> | Iterable<readonly R[]>, write: (record: R) => string): AsyncGenerator<string> {
  yield `${str(key)}:[`;
  let first = true;
  for await (const rows of pages) {
    yield rows
      .map((row) => {
        const line = `${first ? '' : ','}\n${write(row)}`;
        first = false;
        return line;
      })
      .join('');
  }
  yield ']';
}

/** The `json` export, as text chunks in order. */
export async function* campaignJson(db: Db, campaign: CampaignRow, exportedAt: string): AsyncGenerator<string> {
  yield `${str({ format: DOCUMENT_FORMAT, version: DOCUMENT_VERSION, exportedAt }).slice(0, -1)},\n"campaign":${campaignJsonOf(campaign)},\n`;
  yield* jsonArray('thingTypes', [await listThingTypes(db, campaign.id)], thingTypeJson);
  yield ',\n';
  yield* jsonArray('things', thingPages(db, campaign.id), thingJson);
  yield ',\n';
  yield* jsonArray('arcs', arcPages(db, campaign.id), arcJson);
  yield ',\n';
  yield* jsonArray('links', arcThingPages(db, campaign.id), linkJson);
  yield ',\n';
  yield* jsonArray('assets', assetPages(db, campaign.id), assetJson);
  yield ',\n';
  yield* jsonArray('members', [await listMembersByJoining(db, campaign.id)], memberJson);
  yield '}\n';
}
