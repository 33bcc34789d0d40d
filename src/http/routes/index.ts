import type { AppInstance } from '../app-types.js';
import { arcsRoutes } from './arcs.js';
import { assetsRoutes } from './assets.js';
import { authRoutes } from './auth.js';
import { campaignRoutes } from './campaigns.js';
import { changesRoutes } from './changes.js';
import { exportRoutes } from './export.js';
import { healthRoutes } from './health.js';
import { importRoutes } from './import.js';
import { invitationPreviewRoutes } from './invitation-preview.js';
import { membersRoutes } from './members.js';
import { revisionsRoutes } from './revisions.js';
import { richContentRoutes } from './rich-content.js';
import { searchRoutes } from './search.js';
import { tagsRoutes } from './tags.js';
import { thingArcsRoutes } from './thing-arcs.js';
import { thingTypesRoutes } from './thing-types.js';
import { thingsRoutes } from './things.js';
import { trashRoutes } from './trash.js';

export function registerApiRoutes(app: AppInstance): void {
  healthRoutes(app);
  authRoutes(app);
  campaignRoutes(app);
  thingTypesRoutes(app);
  thingsRoutes(app);
  arcsRoutes(app);
  thingArcsRoutes(app);
  assetsRoutes(app);
  searchRoutes(app);
  tagsRoutes(app);
  richContentRoutes(app);
  membersRoutes(app);
  invitationPreviewRoutes(app);
  changesRoutes(app);
  exportRoutes(app);
  trashRoutes(app);
  revisionsRoutes(app);
  // Its own content-type parsers (a streamed body), hence its own plugin scope.
  void app.register(importRoutes);
}
