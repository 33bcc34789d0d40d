import type { AppInstance } from '../app-types.js';
import { campaignRoutes } from './campaigns.js';
import { healthRoutes } from './health.js';

export function registerApiRoutes(app: AppInstance): void {
  healthRoutes(app);
  campaignRoutes(app);
}
