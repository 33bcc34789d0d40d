import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

// Timestamps travel as ISO 8601 strings on both dialects (see database.ts for the PostgreSQL
// type parser). Rich-text fields are stored as JSON text.

export interface UsersTable {
  id: string;
  email: string;
  email_normalized: string;
  name: string;
  password_hash: string;
  premium_until: string | null;
  created_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  user_id: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: string;
  name: string;
  secret_hash: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** One-time password reset links (the command line issues them); the secret only hashed. */
export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: string;
  secret_hash: string;
  created_at: string;
  expires_at: string;
}

export interface RateLimitsTable {
  key: string;
  window_start: string;
  hits: number;
}

export interface CampaignsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  description: string | null;
  user_id: string;
  version: number;
  /** Bumped by every write to the campaign's content; keys the response cache. */
  content_version: Generated<number>;
  /** The visibility a thing or arc created without one takes: 'all' or 'gm'. */
  default_visibility: Generated<'all' | 'gm'>;
  created_at: string;
  updated_at: string;
  /** What players see as updated_at when it differs (migrations/2026-11-24-0013-previous-slugs.ts). */
  players_updated_at: Generated<string | null>;
  /** Set while the campaign is in its owner's trash (migrations/2026-11-24-0016-trash.ts). */
  deleted_at: Generated<string | null>;
  deleted_by: Generated<string | null>;
  /** The slug it had before it went to the trash (its `slug` is then `~<id>`). */
  trashed_slug: Generated<string | null>;
}

export interface ThingTypesTable {
  id: Generated<number>;
  campaign_id: number;
  name: string;
  name_key: string;
  version: number;
  created_at: string;
  updated_at: string;
  /** JSON text: the type's fields `[{key, kind}]` (domain/properties.ts). */
  fields: Generated<string>;
}

export interface ThingsTable {
  id: Generated<number>;
  campaign_id: number;
  type_id: number;
  slug: string;
  name: string;
  /** The name's sort key (domain/name-sort.ts; migrations/2026-11-25-0029-name-sort.ts). */
  name_sort: Generated<string>;
  description: string | null;
  /** 'all' or 'gm' (see access/view.ts). */
  visibility: Generated<Visibility>;
  version: number;
  created_at: string;
  updated_at: string;
  /** What players see as updated_at when it differs (migrations/2026-11-24-0013-previous-slugs.ts). */
  players_updated_at: Generated<string | null>;
  /** JSON text (domain/properties.ts; migrations/2026-11-24-0018-properties.ts). */
  properties: Generated<string>;
  tags: Generated<string>;
  /** The folded tags between unit separators, for tag filters (domain/properties.ts tagKeysOf). */
  tag_keys: Generated<string>;
  aliases: Generated<string>;
}

export type Visibility = 'all' | 'gm';
export type Role = 'owner' | 'gm' | 'player';

export interface CampaignMembersTable {
  campaign_id: number;
  user_id: string;
  role: Role;
  joined_at: string;
}

export interface InvitationsTable {
  id: Generated<number>;
  campaign_id: number;
  role: 'gm' | 'player';
  secret_hash: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  max_uses: number;
  uses: Generated<number>;
}

export { ARC_TEXT_FIELDS, type ArcTextField } from '../domain/arc-fields.js';

export interface ArcsTable {
  id: Generated<number>;
  campaign_id: number;
  parent_arc_id: number | null;
  slug: string;
  name: string;
  hook: string | null;
  protagonist: string | null;
  antagonist: string | null;
  problem: string | null;
  key: string | null;
  outcome: string | null;
  notes: string | null;
  visibility: Generated<Visibility>;
  version: number;
  created_at: string;
  updated_at: string;
  /** What players see as updated_at when it differs (migrations/2026-11-24-0013-previous-slugs.ts). */
  players_updated_at: Generated<string | null>;
  /** JSON text (domain/properties.ts; migrations/2026-11-24-0018-properties.ts). */
  properties: Generated<string>;
  tags: Generated<string>;
  /** The folded tags between unit separators, for tag filters (domain/properties.ts tagKeysOf). */
  tag_keys: Generated<string>;
  aliases: Generated<string>;
}

export interface ArcThingsTable {
  campaign_id: number;
  arc_id: number;
  thing_id: number;
  created_at: string;
}

export interface UploadGrantsTable {
  campaign_id: number;
  id: string;
  user_id: string;
  label: string;
  created_at: string;
  expires_at: string;
  uploaded_at: string | null;
}

export interface AssetsTable {
  id: Generated<number>;
  campaign_id: number;
  user_id: string;
  image_id: string;
  label: string;
  /** Where the image host keeps the file (a path, an object key): internal, never answered. */
  storage_key: string;
  url: string;
  content_type: string;
  byte_size: number;
  /** Pixels as a browser lays the image out, read from its header at upload; null when unknown. */
  width: number | null;
  height: number | null;
  /** 1 when its WebP variants are stored beside it (src/images/variants.ts), else 0. */
  has_variants: Generated<number>;
  created_at: string;
}

export interface ImageRemovalsTable {
  id: Generated<number>;
  campaign_id: number;
  image_id: string;
  queued_at: string;
}

/** A campaign whose import is still writing it (migrations/2026-11-24-0021-campaign-imports.ts). */
export interface CampaignImportsTable {
  campaign_id: number;
  /** JSON array of the image ids placed for it at the image host. */
  image_ids: string;
  heartbeat_at: string;
}

export interface IndexRebuildsTable {
  name: string;
  requested_at: string;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  api_tokens: ApiTokensTable;
  password_resets: PasswordResetsTable;
  rate_limits: RateLimitsTable;
  campaigns: CampaignsTable;
  thing_types: ThingTypesTable;
  things: ThingsTable;
  arcs: ArcsTable;
  arc_things: ArcThingsTable;
  upload_grants: UploadGrantsTable;
  assets: AssetsTable;
  image_removals: ImageRemovalsTable;
  index_rebuilds: IndexRebuildsTable;
  search_documents: SearchDocumentsTable;
  search_postings: SearchPostingsTable;
  search_terms: SearchTermsTable;
  search_pending: SearchPendingTable;
  mentions: MentionsTable;
  campaign_members: CampaignMembersTable;
  invitations: InvitationsTable;
  changes: ChangesTable;
  previous_slugs: PreviousSlugsTable;
  change_floors: ChangeFloorsTable;
  trash: TrashTable;
  trash_links: TrashLinksTable;
  revisions: RevisionsTable;
  gone_gm_only: GoneGmOnlyTable;
  import_jobs: ImportJobsTable;
  campaign_imports: CampaignImportsTable;
}

/** Import jobs (migrations/2026-11-24-0020-import-jobs.ts). */
export interface ImportJobsTable {
  id: string;
  user_id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress_done: number;
  progress_total: number;
  campaign_id: number | null;
  report: string | null;
  error: string | null;
  idempotency_key: string | null;
  instance_id: string;
  heartbeat_at: string;
  created_at: string;
  updated_at: string;
}
export type ImportJobRow = Selectable<ImportJobsTable>;

/** GM-only things (kind 1) and arcs (kind 2) whose rows are gone: still hidden from players (migrations/2026-11-24-0019-gone-gm-only.ts). */
export interface GoneGmOnlyTable {
  campaign_id: number;
  kind: number;
  record_id: number;
}

export type TrashKind = 'thing' | 'arc' | 'thing-type' | 'asset';

// The trash (see migrations/2026-11-24-0016-trash.ts): one row per delete, its rows in `payload`.
export interface TrashTable {
  id: Generated<number>;
  campaign_id: number;
  kind: TrashKind;
  record_id: number;
  container_id: number | null;
  slug: string | null;
  name: string;
  deleted_at: string;
  deleted_by: string | null;
  deleted_by_name: string | null;
  with_things: number;
  with_arcs: number;
  with_links: number;
  /** The stored image of a trashed asset, removed when the entry (or the campaign) is erased. */
  image_id: string | null;
  payload: Buffer;
}
export type TrashRow = Selectable<TrashTable>;

/** Links waiting for their other end to come back from the trash (migrations/2026-11-24-0016-trash.ts). */
export interface TrashLinksTable {
  campaign_id: number;
  arc_id: number;
  thing_id: number;
  created_at: string;
}

// The changes feed (see migrations/2026-11-23-0010-changes.ts), kept by database triggers.
export interface ChangesTable {
  campaign_id: number;
  kind: number;
  record_id: number;
  other_id: number;
  version: number;
  deleted: number;
  changed_at: string;
}

export interface ChangeFloorsTable {
  campaign_id: number;
  version: number;
}

export type UserRow = Selectable<UsersTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type ThingTypeRow = Selectable<ThingTypesTable>;
export type ThingRow = Selectable<ThingsTable>;
export type ArcRow = Selectable<ArcsTable>;
export type NewThing = Insertable<ThingsTable>;
export type ThingUpdate = Updateable<ThingsTable>;
export type ArcUpdate = Updateable<ArcsTable>;
export type UploadGrantRow = Selectable<UploadGrantsTable>;
export type AssetRow = Selectable<AssetsTable>;
export type MemberRow = Selectable<CampaignMembersTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type ImageRemovalRow = Selectable<ImageRemovalsTable>;

// The search index (src/search; see migrations/2026-11-21-0003-search.ts). `kind`: 1 thing, 2 arc,
// 3 campaign description. Lengths count terms.
/** Records whose search documents are to be brought up to date (migrations/…-0030-search-pending.ts, db/indexes/search-queue.ts). */
export interface SearchPendingTable {
  campaign_id: number;
  /** search/document.ts KIND_CODES. */
  kind: number;
  /** The thing's or arc's id; the campaign's own id for its description. */
  record_id: number;
  /** Writes queued since the row was added. */
  seq: Generated<number>;
}

export interface SearchDocumentsTable {
  id: Generated<number>;
  campaign_id: number;
  kind: number;
  thing_id: number | null;
  arc_id: number | null;
  name_key: string;
  name_len: number;
  text_len: number;
  /** Bit set of the views the document is for: 1 players, 2 game masters. */
  audience: Generated<number>;
}

export interface SearchPostingsTable {
  campaign_id: number;
  term: string;
  doc_id: number;
  kind: number;
  record_id: number;
  name_tf: number;
  text_tf: number;
  /** The document's lengths in terms, lossy (search/document.ts postingLength; migrations/…-0023-posting-lengths.ts). */
  name_len: number;
  text_len: number;
  audience: Generated<number>;
}

export interface SearchTermsTable {
  campaign_id: number;
  term: string;
  /** The word's typo keys, one per segment (search/fuzzy.ts; migrations/2026-11-24-0015-search-audiences.ts). */
  typo0: string | null;
  typo1: string | null;
  typo2: string | null;
}

// The mentions index (see migrations/2026-11-22-0008-mentions.ts). Kinds: 1 thing, 2 arc, 3 campaign.
export interface MentionsTable {
  id: Generated<number>;
  campaign_id: number;
  source_kind: number;
  thing_id: number | null;
  arc_id: number | null;
  field: string;
  target_kind: number;
  target_id: number | null;
  target_slug: string | null;
  secret: number;
}

// Slugs a thing or an arc had before (see migrations/2026-11-24-0013-previous-slugs.ts). Kinds: 1 thing, 2 arc.
export interface PreviousSlugsTable {
  id: Generated<number>;
  campaign_id: number;
  kind: number;
  slug: string;
  thing_id: number | null;
  arc_id: number | null;
}

// Revisions of things, arcs and campaigns (see migrations/2026-11-24-0017-revisions.ts). Kinds: 1
// thing, 2 arc, 3 campaign. `snapshot`: a header byte and the record's JSON (history/snapshots.ts).
export interface RevisionsTable {
  id: Generated<number>;
  campaign_id: number;
  record_kind: number;
  record_id: number;
  author_id: string | null;
  author_name: string | null;
  created_at: string;
  updated_at: string;
  name: string | null;
  /** JSON array of the names of the fields changed from the revision before. */
  fields: string;
  snapshot: Buffer;
  /** JSON object of the snapshot's fields as digests (history/snapshots.ts); null in revisions kept before they existed. */
  digests: string | null;
}
