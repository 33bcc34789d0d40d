import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import * as initial from './2026-11-20-0001-initial.js';
import * as assets from './2026-11-21-0002-assets.js';
import * as search from './2026-11-21-0003-search.js';
import * as contentVersion from './2026-11-21-0004-content-version.js';
import * as postingsByDocument from './2026-11-21-0005-postings-by-document.js';
import * as indexRebuilds from './2026-11-22-0006-index-rebuilds.js';
import * as assetStorageKey from './2026-11-22-0007-asset-storage-key.js';
import * as mentions from './2026-11-22-0008-mentions.js';
import * as sharing from './2026-11-23-0009-sharing.js';
import * as changes from './2026-11-23-0010-changes.js';
import * as mentionNames from './2026-11-24-0011-mention-names.js';
import * as defaultVisibility from './2026-11-24-0012-default-visibility.js';
import * as previousSlugs from './2026-11-24-0013-previous-slugs.js';
import * as accounts from './2026-11-24-0014-accounts.js';
import * as searchAudiences from './2026-11-24-0015-search-audiences.js';
import * as trash from './2026-11-24-0016-trash.js';
import * as revisions from './2026-11-24-0017-revisions.js';
import * as properties from './2026-11-24-0018-properties.js';
import * as goneGmOnly from './2026-11-24-0019-gone-gm-only.js';
import * as importJobs from './2026-11-24-0020-import-jobs.js';
import * as campaignImports from './2026-11-24-0021-campaign-imports.js';
import * as assetDimensions from './2026-11-24-0022-asset-dimensions.js';
import * as postingLengths from './2026-11-24-0023-posting-lengths.js';
import * as pendingChanges from './2026-11-24-0024-pending-changes.js';
import * as searchImpact from './2026-11-24-0025-search-impact.js';
import * as callerNotifications from './2026-11-24-0026-caller-notifications.js';
import * as assetVariants from './2026-11-24-0027-asset-variants.js';
import * as announcedVersions from './2026-11-24-0028-announced-versions.js';
import * as nameSort from './2026-11-25-0029-name-sort.js';
import * as searchPending from './2026-11-25-0030-search-pending.js';
import * as versionsAtCommit from './2026-11-25-0031-versions-at-commit.js';
import * as revisionDigests from './2026-11-25-0032-revision-digests.js';
import * as campaignBumpTrigger from './2026-11-25-0033-campaign-bump-trigger.js';
import * as campaignGone from './2026-11-26-0034-campaign-gone.js';
import * as rowChanged from './2026-11-26-0035-row-changed.js';
import * as writeRefused from './2026-11-26-0036-write-refused.js';

export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

// Every migration, in order. Names are permanent: they are recorded in kysely_migration.
export const migrations: Record<string, DialectMigration> = {
  '2026-11-20-0001-initial': initial,
  '2026-11-21-0002-assets': assets,
  '2026-11-21-0003-search': search,
  '2026-11-21-0004-content-version': contentVersion,
  '2026-11-21-0005-postings-by-document': postingsByDocument,
  '2026-11-22-0006-index-rebuilds': indexRebuilds,
  '2026-11-22-0007-asset-storage-key': assetStorageKey,
  '2026-11-22-0008-mentions': mentions,
  '2026-11-23-0009-sharing': sharing,
  '2026-11-23-0010-changes': changes,
  '2026-11-24-0011-mention-names': mentionNames,
  '2026-11-24-0012-default-visibility': defaultVisibility,
  '2026-11-24-0013-previous-slugs': previousSlugs,
  '2026-11-24-0014-accounts': accounts,
  '2026-11-24-0015-search-audiences': searchAudiences,
  '2026-11-24-0016-trash': trash,
  '2026-11-24-0017-revisions': revisions,
  '2026-11-24-0018-properties': properties,
  '2026-11-24-0019-gone-gm-only': goneGmOnly,
  '2026-11-24-0020-import-jobs': importJobs,
  '2026-11-24-0021-campaign-imports': campaignImports,
  '2026-11-24-0022-asset-dimensions': assetDimensions,
  '2026-11-24-0023-posting-lengths': postingLengths,
  '2026-11-24-0024-pending-changes': pendingChanges,
  '2026-11-24-0025-search-impact': searchImpact,
  '2026-11-24-0026-caller-notifications': callerNotifications,
  '2026-11-24-0027-asset-variants': assetVariants,
  '2026-11-24-0028-announced-versions': announcedVersions,
  '2026-11-25-0029-name-sort': nameSort,
  '2026-11-25-0030-search-pending': searchPending,
  '2026-11-25-0031-versions-at-commit': versionsAtCommit,
  '2026-11-25-0032-revision-digests': revisionDigests,
  '2026-11-25-0033-campaign-bump-trigger': campaignBumpTrigger,
  '2026-11-26-0034-campaign-gone': campaignGone,
  '2026-11-26-0035-row-changed': rowChanged,
  '2026-11-26-0036-write-refused': writeRefused,
};
