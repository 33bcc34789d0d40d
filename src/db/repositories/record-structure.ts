// The checks a write of properties makes against the campaign (CONTRACT "Records: properties, tags,
// aliases"): the values of keys the thing's type declares match their kind, and every link names a
// thing or an arc of the campaign. One statement each, whatever the number of properties.
import type { Db } from '../database.js';
import { errors, type FieldIssue } from '../../domain/errors.js';
import { MAX_RECORD_ID } from '../../domain/ids.js';
import { checkAgainstFields, checkPropertyLimits, parseStoredFields, propertyLinks, type Property, type PropertyLink, type TypeField } from '../../domain/properties.js';

/** The fields a thing type declares; undefined when the campaign has no such type. */
export async function thingTypeFields(db: Db, campaignId: number, typeId: number): Promise<TypeField[] | undefined> {
  if (!Number.isSafeInteger(typeId) || typeId < 1 || typeId > MAX_RECORD_ID) return undefined;
  const row = await db.selectFrom('thing_types').select('fields').where('campaign_id', '=', campaignId).where('id', '=', typeId).executeTakeFirst();
  return row ? parseStoredFields(row.fields) : undefined;
}

/**
 * 400 with a pointer (relative: `properties/2/value`) for every value that does not match its
 * declared kind, and when the declared keys a new thing starts with take it past the bounds.
 */
export function checkDeclaredKinds(properties: readonly Property[], fields: readonly TypeField[]): void {
  const issues: FieldIssue[] = [];
  checkAgainstFields(properties, fields, 'properties', issues);
  checkPropertyLimits(properties, 'properties', issues);
  if (issues.length > 0) throw errors.validationFailed(issues);
}

/**
 * 400 `invalid_reference` for every link to a thing or an arc the campaign does not have. Links the
 * record already had (`before`, its stored properties) are not checked again: their target may be
 * in the trash now, and a write that sends every property back (as the web app does) must not fail
 * on a link the writer did not make.
 */
export async function checkLinkTargets(db: Db, campaignId: number, properties: readonly Property[], before: readonly Property[] = []): Promise<void> {
  const had = new Set(propertyLinks(before).map(({ link }) => `${link.targetType}:${link.targetId}`));
  const isNew = (value: PropertyLink) => !had.has(`${value.targetType}:${value.targetId}`);
  const links = propertyLinks(properties).filter(({ link }) => isNew(link));
  if (links.length === 0) return;
  const ids = (type: 'thing' | 'arc') => [...new Set(links.filter((l) => l.link.targetType === type && l.link.targetId <= MAX_RECORD_ID).map((l) => l.link.targetId))];
  const thingIds = ids('thing');
  const arcIds = ids('arc');
  const found = { thing: new Set<number>(), arc: new Set<number>() };
  if (thingIds.length > 0) {
    for (const row of await db.selectFrom('things').select('id').where('campaign_id', '=', campaignId).where('id', 'in', thingIds).execute()) found.thing.add(row.id);
  }
  if (arcIds.length > 0) {
    for (const row of await db.selectFrom('arcs').select('id').where('campaign_id', '=', campaignId).where('id', 'in', arcIds).execute()) found.arc.add(row.id);
  }
  const issues: FieldIssue[] = [];
  properties.forEach((property, index) => {
    const values = Array.isArray(property.value) ? property.value : [property.value];
    values.forEach((value, item) => {
      if (typeof value !== 'object' || value === null) return;
      if (found[value.targetType].has(value.targetId) || !isNew(value)) return;
      const path = Array.isArray(property.value) ? `properties/${index}/value/${item}` : `properties/${index}/value`;
      issues.push({ path, message: `names no ${value.targetType} of this campaign (${value.targetId})` });
    });
  });
  if (issues.length > 0) throw errors.unknownLinkTargets(issues);
}
