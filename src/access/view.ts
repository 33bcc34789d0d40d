// What a caller may see of a campaign (CONTRACT "Members and roles"), in one place.
//
// Every campaign request gets a View, built by the authentication hook from the caller's membership:
// a game master's view (owner and gm) sees everything; a player's view (a player, or a game master
// who asked to see the campaign as players do with the `Loreforge-View: player` header) sees
// neither GM-only records nor secret blocks. The rest of the service reads the campaign only
// through the view:
//
//   - repositories start every read of things and arcs from visibleThings / visibleArcs
//     (db/repositories/visible.ts), so a GM-only record is absent from every query a player's
//     request runs: records, lists, counts, cursors, links, parents, children, backlinks, mentions;
//   - presenters pass every rich-text field through richTextFor / richTextJsonFor, which drop secret
//     elements (at any depth) and mentions of hidden records, whole, for a player's view;
//   - the response cache and every ETag carry the view's key, so no answer built for one view is
//     ever served, or confirmed by a 304, to another.
import type { Role } from '../db/schema.js';
import { emptyRichText, parseStoredRichText, type RichText } from '../domain/rich-text.js';
import { mentionTarget, redactNodes } from '../vocabulary/index.js';
import { isPropertyLink, parseStoredProperties, type Property, type PropertyScalar } from '../domain/properties.js';

/** The GM-only records of a campaign, by id: what a player's view must never name. */
export interface HiddenRecords {
  things: ReadonlySet<number>;
  arcs: ReadonlySet<number>;
}

export interface View {
  campaignId: number;
  /** The campaign's content version when the request began (keys the player's record ETags). */
  contentVersion: number;
  /** The caller's own role in the campaign. */
  memberRole: Role;
  /** The role the request acts with: `player` while a game master views the campaign as players do. */
  role: Role;
  /** Whether this is a player's view: no GM-only records, no secret blocks. */
  players: boolean;
  /** For a player's view, loaded before the handler runs (auth.ts); undefined for a game master's. */
  hidden?: HiddenRecords | undefined;
}

/** The request header with which an owner or a game master sees the campaign as players do. */
export const VIEW_HEADER = 'loreforge-view';

export function makeView(campaign: { id: number; content_version: number }, memberRole: Role, asPlayer: boolean): View {
  const players = memberRole === 'player' || asPlayer;
  return { campaignId: campaign.id, contentVersion: campaign.content_version, memberRole, role: players ? 'player' : memberRole, players };
}

/** A game master's view of the campaign, for work done on its behalf (writes, housekeeping). */
export function fullView(campaign: { id: number; content_version: number }): View {
  return makeView(campaign, 'owner', false);
}

/** Distinguishes answers built for different views: the response cache's key and the ETags carry it. */
export function viewKey(view: View): string {
  return view.players ? 'player' : view.role;
}

function hiddenOf(view: View): HiddenRecords {
  if (!view.hidden) throw new Error('a player’s view was used before its hidden records were loaded');
  return view.hidden;
}

/** Whether a node is a mention of a record the hidden set names (removed whole for players). */
export function mentionsHidden(node: unknown, hidden: HiddenRecords): boolean {
  const target = mentionTarget(node);
  if (!target) return false;
  return (target.targetType === 'thing' ? hidden.things : hidden.arcs).has(target.targetId);
}

/**
 * Rich text as players may read it: no secret element at any depth (with everything inside it), no
 * mention of a hidden record (removed whole, its children included). See vocabulary/secrecy.ts.
 */
export function redactRichText(value: RichText, hidden: HiddenRecords): RichText {
  const kept = redactNodes(value, (node) => mentionsHidden(node, hidden));
  return kept.length > 0 ? kept : emptyRichText();
}

/** A stored rich-text field (JSON text or NULL) as this view may read it. */
export function richTextFor(view: View, stored: string | null): RichText {
  const value = parseStoredRichText(stored);
  return view.players ? redactRichText(value, hiddenOf(view)) : value;
}

function hidesAny(hidden: HiddenRecords): boolean {
  return hidden.things.size > 0 || hidden.arcs.size > 0;
}

/**
 * Whether stored rich text may hold something a player's view must change (fast, conservative):
 * stored rich text is JSON.stringify of a validated value, so a secret element at any depth holds
 * the key `"isSecret"` and a mention the value `"mention"`; a mention matters only when the
 * campaign has GM-only records (redactNodes gives back an untouched value as it was).
 */
function mayNeedRedaction(stored: string, hidden: HiddenRecords): boolean {
  return stored.includes('"isSecret"') || (stored.includes('"mention"') && hidesAny(hidden));
}

/**
 * A stored rich-text field as JSON text for this view: the stored text itself where nothing is to be
 * removed (it is JSON.stringify of the validated value), else the redacted value serialized.
 */
export function richTextJsonFor(view: View, stored: string | null, emptyJson: string): string {
  if (stored === null || stored === 'null') return emptyJson;
  if (!view.players) return stored;
  const hidden = hiddenOf(view);
  if (!mayNeedRedaction(stored, hidden)) return stored;
  return JSON.stringify(redactRichText(parseStoredRichText(stored), hidden));
}

/** Whether this view may see a record of this visibility. */
export function sees(view: View, visibility: string): boolean {
  return !view.players || visibility === 'all';
}

function linksHidden(value: PropertyScalar, hidden: HiddenRecords): boolean {
  return isPropertyLink(value) && (value.targetType === 'thing' ? hidden.things : hidden.arcs).has(value.targetId);
}

/**
 * Properties as players may read them: no GM-only property; no link to a hidden record (a list
 * loses such items, and a property whose whole value was such links is gone).
 */
export function redactProperties(properties: readonly Property[], hidden: HiddenRecords): Property[] {
  const out: Property[] = [];
  for (const property of properties) {
    if (property.gmOnly) continue;
    const { value } = property;
    if (Array.isArray(value)) {
      const kept = value.filter((item) => !linksHidden(item, hidden));
      if (kept.length === value.length) out.push(property);
      else if (kept.length > 0) out.push({ ...property, value: kept });
    } else if (!linksHidden(value, hidden)) out.push(property);
  }
  return out;
}

/** A record's stored properties as this view may read them. */
export function propertiesFor(view: View, stored: string | null | undefined): Property[] {
  const properties = parseStoredProperties(stored);
  return view.players ? redactProperties(properties, hiddenOf(view)) : properties;
}

/**
 * Stored properties as JSON text for this view: the stored text itself where nothing is to be
 * removed (it is JSON.stringify of the validated value: a GM-only property holds `"gmOnly":true`,
 * a link `"targetType"`, which matters only when the campaign has GM-only records), else the
 * redacted value serialized.
 */
export function propertiesJsonFor(view: View, stored: string | null | undefined): string {
  if (stored === null || stored === undefined || stored === '' ) return '[]';
  if (!view.players || stored === '[]') return stored;
  const hidden = hiddenOf(view);
  if (!stored.includes('"gmOnly":true') && !(stored.includes('"targetType"') && hidesAny(hidden))) return stored;
  return JSON.stringify(redactProperties(parseStoredProperties(stored), hidden));
}
