import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { listAssets } from '../../db/repositories/assets.js';
import { isStorableId, parseIdText } from '../../domain/ids.js';
import { hasPremium } from '../../domain/accounts.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { IMAGE_ID_PATTERN } from '../../images/image-host.js';
import { confirmUpload, grantUpload } from '../../images/uploads.js';
import type { AppInstance } from '../app-types.js';
import { callerOf, campaignOf } from '../auth.js';
import { trashAsset } from '../../history/trash.js';
import { Asset, AssetParams, ConfirmUploadBody, ConfirmUploadResponse, presentAsset, UploadUrlBody, UploadUrlResponse } from '../schemas/asset.js';
import { CampaignParams, problems } from '../schemas/common.js';

// A route-level onRequest hook runs after the global one (401, then 404) and before the body is
// parsed or validated, which gives the contract's order: 401, 404, 403, 400.
function premiumGate(settings: { everyonePremium: boolean }) {
  return (request: FastifyRequest): Promise<void> => {
    if (!hasPremium(callerOf(request).user, settings)) throw errors.premiumRequired();
    return Promise.resolve();
  };
}

export function assetsRoutes(app: AppInstance) {
  const { database, imageHost } = app;
  const requirePremium = premiumGate(app.config);

  app.post(
    '/campaigns/:campaignSlug/assets/upload-url',
    {
      config: { auth: 'campaign', problemSuccessFlag: true },
      onRequest: requirePremium,
      schema: {
        operationId: 'requestUploadUrl',
        summary: 'Ask for an image upload URL',
        description: 'Premium only. Answers an `uploadURL` to send one image to within 30 minutes and the `imageId` to confirm it with. Checks in this order: caller (401), campaign (404), premium (403), body (400).',
        tags: ['assets'],
        params: CampaignParams,
        body: UploadUrlBody,
        response: { 200: UploadUrlResponse, ...problems(400, 401, 403, 404, 415, 500) },
      },
    },
    async (request) => {
      const check = new InputChecker();
      const label = check.name(request.body.label, '/label');
      check.done();
      const granted = await grantUpload(database, imageHost, {
        campaignId: campaignOf(request).id,
        userId: callerOf(request).user.id,
        label,
        now: new Date(),
      });
      return { success: true as const, uploadURL: granted.uploadURL, imageId: granted.imageId };
    },
  );

  app.post(
    '/campaigns/:campaignSlug/assets/confirm-upload',
    {
      config: { auth: 'campaign', problemSuccessFlag: true },
      onRequest: requirePremium,
      schema: {
        operationId: 'confirmUpload',
        summary: 'Confirm an uploaded image',
        description: 'Premium only. Asks the image host for the uploaded file and saves the asset; confirming again returns the same asset. Before answering it makes the image’s WebP `variants` for small screens (a second or so for a large image; none, and still 200, when they cannot be made). 400 when the upload has not arrived, expired or was refused; 500 when the host cannot be asked.',
        tags: ['assets'],
        params: CampaignParams,
        body: ConfirmUploadBody,
        response: { 200: ConfirmUploadResponse, ...problems(400, 401, 403, 404, 415, 500) },
      },
    },
    async (request) => {
      const check = new InputChecker();
      const label = check.name(request.body.label, '/label');
      const imageId = request.body.imageId;
      if (!IMAGE_ID_PATTERN.test(imageId)) check.issues.push({ path: '/imageId', message: 'must be an imageId as returned by upload-url' });
      check.done();
      const asset = await confirmUpload(
        database,
        imageHost,
        { campaignId: campaignOf(request).id, userId: callerOf(request).user.id, imageId, label, now: new Date() },
        request.log,
      );
      return { success: true as const, url: asset.url, asset: presentAsset(asset) };
    },
  );

  app.get(
    '/campaigns/:campaignSlug/assets',
    {
      // The image library is the game masters' tool: a label may name what players must not know.
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'listAssets',
        summary: 'The campaign’s images',
        description: 'The campaign’s uploaded images, newest first. Needs no premium. Owner and game masters only (a player is 403 `role_forbidden`: a label may name what players must not know); players see images where the content they may read shows them.',
        tags: ['assets'],
        params: CampaignParams,
        response: { 200: Type.Array(Asset), ...problems(401, 404) },
      },
    },
    async (request) => (await listAssets(database.kysely, campaignOf(request).id)).map(presentAsset),
  );

  app.delete(
    '/campaigns/:campaignSlug/assets/:id',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'deleteAsset',
        summary: 'Delete an image',
        description: 'Moves the asset to the campaign’s trash (`GET …/trash`); its stored image and its variants stay (and their URLs keep answering) until the entry is erased, after TRASH_RETENTION_DAYS (default 30) or by `DELETE …/trash/asset/{id}`. Needs no premium.',
        tags: ['assets'],
        params: AssetParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const raw = request.params.id;
      const id = parseIdText(raw);
      if (id === undefined) throw errors.invalidId('an asset', raw);
      if (!isStorableId(id)) throw errors.assetNotFound(raw);
      const { user } = callerOf(request);
      await trashAsset(database, campaignOf(request).id, id, { userId: user.id, name: user.name });
      return reply.code(204).send(null);
    },
  );
}
