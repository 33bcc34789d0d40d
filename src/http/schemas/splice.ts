// Answers written as JSON text with the stored texts spliced in.
//
// A list of things or arcs is nearly all rich text. Presenting it the ordinary way parses every
// stored rich text, properties, tags and aliases (JSON.parse) for the response schema's serializer
// to write them back (JSON.stringify): most of the time and memory of the request, to produce the
// text the database already holds. Each of them is stored as JSON.stringify of the validated value
// (serializeRichText, structureColumns), and parse-then-stringify gives back exactly that text. So
// these answers are written here directly: for a game master the stored texts as they are; for a
// player the stored text where nothing in it can be a secret or a hidden record, else the redacted
// value serialized (access/view.ts, richTextJsonFor and propertiesJsonFor decide). The bytes are the
// schema's serializer's of the presented value (presentThing, presentArc): the splice tests
// (test/integration/*-serialization.test.ts) hold the two equal for random campaigns and views.
import { propertiesJsonFor, richTextJsonFor, type View } from '../../access/view.js';
import { shownUpdatedAt } from '../../access/players-see.js';
import { emptyRichText } from '../../domain/rich-text.js';
import type { ThingFields } from './thing.js';

const EMPTY_RICH_TEXT_JSON = JSON.stringify(emptyRichText());

/** A string as the serializer writes it. */
export const str = (value: string) => JSON.stringify(value);
/** An integer as the serializer writes it. */
export const num = (value: number) => String(Math.trunc(value));

/** A stored rich-text field (JSON text or NULL) as JSON text for this view. */
export type RichTextJson = (stored: string | null) => string;

export function richTextJsonOf(view: View): RichTextJson {
  return (stored) => richTextJsonFor(view, stored, EMPTY_RICH_TEXT_JSON);
}

/** `"properties":…,"tags":…,"aliases":…` of a record (stored tags and aliases are JSON.stringify of validated string arrays). */
export function structureJson(row: { properties: string; tags: string; aliases: string }, view: View): string {
  return `"properties":${propertiesJsonFor(view, row.properties)},"tags":${row.tags || '[]'},"aliases":${row.aliases || '[]'}`;
}

/** One thing as JSON text: byte for byte the Thing schema's serialization of presentThing(thing, view). */
export function thingJson(thing: ThingFields, view: View, richTextJson: RichTextJson = richTextJsonOf(view)): string {
  return (
    `{"id":${num(thing.id)},"slug":${str(thing.slug)},"typeId":${num(thing.type_id)},"name":${str(thing.name)},` +
    `"description":${richTextJson(thing.description)},"visibility":${str(thing.visibility)},${structureJson(thing, view)},"campaignId":${num(thing.campaign_id)},` +
    `"createdAt":${str(thing.created_at)},"updatedAt":${str(shownUpdatedAt(view, thing))}}`
  );
}

/** A list of things as JSON text: byte for byte `Type.Array(Thing)`'s serialization of rows.map(presentThing). */
export function serializeThings(rows: readonly ThingFields[], view: View): string {
  const richTextJson = richTextJsonOf(view);
  let out = '[';
  for (let i = 0; i < rows.length; i++) out += (i === 0 ? '' : ',') + thingJson(rows[i]!, view, richTextJson);
  return `${out}]`;
}
