import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fs from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { takeSlot } from '../../db/repositories/rate-limits.js';
import { hasPremium } from '../../domain/accounts.js';
import { HOUR_MS, limitKeys } from '../../domain/rate-limit.js';
import { AppError, errors } from '../../domain/errors.js';
import { makeView } from '../../access/view.js';
import { ImportBudget, ImportCancelled } from '../../portability/budget.js';
import { fileKind, IMPORT_JSON_MAX_BYTES, importCampaign, importSpoolFile } from '../../portability/import.js';
import { callerOf } from '../auth.js';
import { campaignEtag } from '../conditional.js';
import { HttpError } from '../errors.js';
import { Campaign, presentCampaign } from '../schemas/campaign.js';
import { CampaignDocument } from '../../portability/json-document/schema.js';
import { problems } from '../schemas/common.js';

// Import (CONTRACT "Portability"): POST /api/campaigns/import. The body is spooled to a temporary
// file as it arrives, counting bytes (past IMPORT_MAX_BYTES it stops: 413), then imported from
// there: a zip is read by random access, never held in memory whole. The file is removed afterwards.
// An import is the heaviest request there is (CONTRACT "Hostile input"): one per user at a time, at
// most IMPORTS_MAX_CONCURRENT on this instance, everything it reads counted against
// IMPORT_MAX_EXPANDED_BYTES, and stopped, creating nothing, once its client goes away.

/** Seconds a caller refused for a full instance is told to wait (Retry-After). */
const BUSY_RETRY_SECONDS = 10;

const MULTIPART_OVERHEAD = 64 * 1024;

const ImportReport = Type.Object({
  format: Type.Unsafe<'json' | 'archive' | 'markdown'>({ type: 'string', enum: ['json', 'archive', 'markdown'], description: 'what the file was read as' }),
  thingTypes: Type.Integer({ description: 'thing types created' }),
  things: Type.Integer(),
  arcs: Type.Integer(),
  links: Type.Integer({ description: 'thing–arc links' }),
  assets: Type.Integer({ description: 'uploaded images stored' }),
  warnings: Type.Array(
    Type.Object({
      entry: Type.String({ description: 'the file of the zip (its path), or the document, that the warning is about' }),
      problem: Type.String({ description: 'what was left out or changed, in words' }),
    }),
    { description: 'every thing the import left out or changed (members, which are not imported; in a vault from elsewhere, what could not be read as it should and how it was imported instead)' },
  ),
});

const ImportedCampaign = Type.Object(
  { ...Campaign.properties, import: ImportReport },
  { description: 'The new campaign (as GET returns it; the caller is its owner), with a report of what was imported' },
);

/** Copies `source` to `file`, failing with 413 past `max` bytes. */
async function spool(source: Readable, file: string, max: number, maxForMessage: number): Promise<void> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > max) done(errors.importTooLarge(maxForMessage));
      else done(null, chunk);
    },
  });
  const handle = await fs.open(file, 'wx', 0o600);
  await pipeline(source, counter, handle.createWriteStream());
}

export async function importRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { database, imageHost, config } = app;
  const max = config.importMaxBytes;
  // The imports running on this instance, by user.
  const running = new Set<string>();

  // The body is read by the route as a stream: never buffered by a parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  await app.register(fastifyMultipart, { isPartAFile: (fieldName) => fieldName === 'file' });

  async function receive(request: FastifyRequest, file: string): Promise<{ fileName?: string | undefined; label: string }> {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > max + MULTIPART_OVERHEAD) throw errors.importTooLarge(max);
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (request.isMultipart()) {
      try {
        const part = await request.file({ limits: { fileSize: max, files: 1, fields: 10, fieldSize: 1024, parts: 20, headerPairs: 50 }, throwFileSizeLimit: false });
        if (!part) throw new HttpError('bad_request', 'The form has no file: send it in a field named "file".');
        await spool(part.file, file, Number.POSITIVE_INFINITY, max);
        if (part.file.truncated) throw errors.importTooLarge(max);
        return { fileName: part.filename, label: part.filename || 'the uploaded file' };
      } catch (error) {
        // Our own answers, and the file system's failures, as they are; anything else is the form's fault.
        if (error instanceof AppError || error instanceof HttpError || (error as { syscall?: unknown }).syscall !== undefined) throw error;
        throw new HttpError('bad_request', `The form could not be read (${(error as Error).message}).`);
      }
    }
    if (type === 'application/json' || type === 'application/zip') {
      const limit = type === 'application/json' ? Math.min(max, IMPORT_JSON_MAX_BYTES) : max;
      if (Number.isFinite(declared) && declared > limit) throw errors.importTooLarge(limit);
      await spool(request.raw, file, limit, limit);
      return { label: 'the request body' };
    }
    throw new HttpError('unsupported_media_type', 'Send the file as multipart/form-data in a field named "file", or the raw bytes as application/zip or application/json.');
  }

  app.post(
    '/campaigns/import',
    {
      config: { auth: 'user', rateLimited: true },
      schema: {
        operationId: 'importCampaign',
        summary: 'Import a campaign',
        description:
          'Creates a new campaign, owned by the caller, from an export: an `archive` (zip with campaign.json and images/), a `json` document, ' +
          'our own `markdown` vault, or a Markdown vault made elsewhere, read leniently: each top-level folder a thing type and deeper folders tags, templates folders left out, each `.md` file a thing, front matter `tags`, `aliases` and other keys as tags, aliases and properties, inline `#tags` as tags, `[[wikilinks]]` and Markdown links resolved as Obsidian does (from the note, from the root, by file name or alias, the nearest) as mentions keeping their labels, image files uploaded images; a note or image that cannot be read as it should (front matter that is not valid YAML, a note over the rich-text limit, an image over MAX_UPLOAD_BYTES or not an image) is imported as well as it can be (front matter read forgivingly or left out, the note split into continued parts, the image left out) and listed in `warnings`, not refused. ' +
          'Send it as multipart/form-data in the field `file`, or as the raw bytes (`application/zip`, `application/json`). ' +
          'All or nothing: a file that cannot be imported is 400 `invalid_import`, naming the entry and the problem, and nothing is created. ' +
          'Slugs and timestamps are kept (a campaign slug that is taken gets a suffix); ids are new, and mentions, links, parents and images follow. Members are not imported. ' +
          'At most IMPORT_MAX_BYTES (200 MiB; 413 `import_too_large` past it); a JSON document at most 64 MiB; at most 50,000 zip entries; ' +
          'at most IMPORT_MAX_EXPANDED_BYTES (2 GiB) of uncompressed bytes read from the file in all (400 `invalid_import` naming the budget past it; a zip whose entries declare more is refused before one is read); ' +
          'imported text within the limits of text sent to the API (256 KiB of JSON each, after image URLs are rewritten; 400 `invalid_import` naming the entry); ' +
          'one import per user at a time (429 `import_in_progress`) and at most IMPORTS_MAX_CONCURRENT (2) on an instance (429 `rate_limited` with Retry-After); ' +
          'at most IMPORTS_MAX_PER_USER_PER_HOUR (20) imports an hour (429, counted before the file is read). ' +
          'The JSON document and Markdown are parsed off the server’s event loop, within time and memory bounds (400 `invalid_import` naming the file past them). ' +
          'An import whose client disconnects stops within seconds and creates nothing. ' +
          'Uploaded images in the file are stored with this service’s image host and need premium, as uploads do (403 `premium_required`; the json document, without image bytes, needs none).',
        tags: ['portability'],
        documentedBody: {
          contentTypes: ['multipart/form-data', 'application/zip', 'application/json'],
          schema: Type.Union([
            Type.Object({ file: Type.String({ contentMediaType: 'application/octet-stream', description: 'the export (zip or JSON)' }) }, { description: 'multipart/form-data: the file in the field `file`' }),
            Type.String({ contentMediaType: 'application/zip', description: 'application/zip: the archive or vault itself' }),
            CampaignDocument,
          ]),
          description: 'A form with the file in the field `file` (multipart/form-data), the zip itself (application/zip), or the `json` export document (application/json)',
        },
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: ImportedCampaign, ...problems(400, 401, 403, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request).user;
      const refuse = (error: AppError): never => {
        void reply.header('connection', 'close');
        request.raw.resume();
        throw error;
      };
      if (running.has(caller.id)) refuse(errors.importInProgress());
      if (running.size >= config.importsMaxConcurrent) refuse(errors.rateLimited('This server is running as many imports as it takes at once', BUSY_RETRY_SECONDS));
      running.add(caller.id);
      // Let go before the answer is sent: its client may send the next import the moment it has it.
      const release = () => running.delete(caller.id);
      try {
        return await importFor(request, reply, caller, release);
      } finally {
        release();
      }
    },
  );

  async function importFor(request: FastifyRequest, reply: FastifyReply, caller: ReturnType<typeof callerOf>['user'], release: () => void): Promise<FastifyReply> {
    // Counted before the body is read: an import is the heaviest request there is.
    const decision = await takeSlot(database.kysely, { key: limitKeys.importsByUser(caller.id), max: config.importsMaxPerUserPerHour, windowMs: HOUR_MS });
    if (decision.limited) {
      void reply.header('connection', 'close');
      request.raw.resume();
      throw errors.rateLimited('Too many imports from this account', decision.resetSeconds);
    }
    // The client going away (the connection closes before the answer is sent) stops the import.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.on('close', onClose);
    const budget = new ImportBudget(config.importMaxExpandedBytes, gone.signal);
    const file = importSpoolFile();
    try {
      let received;
      try {
        received = await receive(request, file);
      } catch (error) {
        if (!request.raw.complete) {
          // Answered before the whole body was read: do not reuse the connection.
          void reply.header('connection', 'close');
          request.raw.resume();
        }
        throw error;
      }
      const { campaign, report } = await importCampaign(
        database,
        imageHost,
        { file, kind: await fileKind(file), fileName: received.fileName, label: received.label },
        { ownerId: caller.id, mayStoreImages: hasPremium(caller, config) },
        config.maxUploadBytes,
        budget,
      );
      const view = makeView(campaign, 'owner', false);
      release();
      return await reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}`)
        .header('etag', campaignEtag(view, campaign))
        .send({ ...presentCampaign(campaign, view), import: { format: report.format, ...report.counts, warnings: report.warnings } });
    } catch (error) {
      if (error instanceof ImportCancelled) {
        // Nobody to answer: the connection is gone. Logged as what it is, not as a fault.
        request.log.info('import stopped: its client went away');
        throw new HttpError('bad_request', 'The import was stopped: its client went away.');
      }
      throw error;
    } finally {
      reply.raw.off('close', onClose);
      await fs.rm(file, { force: true });
    }
  }
}
