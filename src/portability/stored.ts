// What every export writer (the json document, the archive, the vault) takes from a stored row the
// same way, so the formats agree: a record's properties, tags and aliases, and where an uploaded
// image's bytes go in a zip.
import path from 'node:path';
import type { AssetRow, ThingRow } from '../db/schema.js';
import { parseStoredLabels, parseStoredProperties } from '../domain/properties.js';

/** A record's properties (GM-only ones too: an export is the owner's or a game master's), tags and aliases. */
export function structureOf(row: Pick<ThingRow, 'properties' | 'tags' | 'aliases'>) {
  return { properties: parseStoredProperties(row.properties), tags: parseStoredLabels(row.tags), aliases: parseStoredLabels(row.aliases) };
}

/** Where an asset's bytes go in an archive or a vault. */
export function assetFile(asset: Pick<AssetRow, 'image_id' | 'storage_key'>): string {
  return `images/${asset.image_id}${path.extname(asset.storage_key)}`;
}
