import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fs from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { classifyDatabaseError } from '../../db/errors.js';
import { deleteImportJob, findImportJob, findImportJobByKey, findJobCampaign, insertImportJob, releaseImportKey } from '../../db/repositories/import-jobs.js';
import { takeSlot } from '../../db/repositories/rate-limits.js';
import type { ImportJobRow, UserRow } from '../../db/schema.js';
import { hasPremium } from '../../domain/accounts.js';
import { HOUR_MS, limitKeys } from '../../domain/rate-limit.js';
import { AppError, errors } from '../../domain/errors.js';
import { addMs, nowIso } from '../../domain/time.js';
import { makeView, VIEW_HEADER } from '../../access/view.js';
import { loadHiddenRecords } from '../../db/repositories/visible.js';
import { ImportBudget, ImportCancelled } from '../../portability/budget.js';
import { dryRunImport, fileKind, IMPORT_JSON_MAX_BYTES, importCampaign, importSpoolFile, type ImportOptions, type ImportSource } from '../../portability/import.js';
import { IDEMPOTENCY_WINDOW_MS, IMPORT_JOB_ID, interruptedProblem, newImportJobId } from '../../portability/import-jobs.js';
import { callerOf } from '../auth.js';
import { campaignEtag } from '../conditional.js';
import { HttpError, problem } from '../errors.js';
import { prefersAsync } from '../prefer.js';
import { presentCampaign } from '../schemas/campaign.js';
import { ImportedCampaign, ImportJob, ImportReport, presentImportJob, presentReport } from '../schemas/import.js';
import { CampaignDocument } from '../../portability/json-document/schema.js';
import { problems } from '../schemas/common.js';

// Import (CONTRACT "Portability"): POST /api/campaigns/import. The body is spooled to a temporary
// file as it arrives, counting bytes (past IMPORT_MAX_BYTES it stops: 413), then imported from
// there: a zip is read by random access, never held in memory whole. The file is removed afterwards.
// An import is the heaviest request there is (CONTRACT "Hostile input"): one per user at a time, at
// most IMPORTS_MAX_CONCURRENT on this instance, everything it reads counted against
// IMPORT_MAX_EXPANDED_BYTES, and stopped, creating nothing, once its client goes away.
//
// CONTRACT "Import from elsewhere" › "Dry run and jobs": `dryRun=true` reads and checks everything
// and answers the report, creating nothing. `Prefer: respond-async` answers 202 once the file is
// received, and the import goes on in the background (import-jobs.ts), holding its slot until it
// ends, whether its client stays or not. An `Idempotency-Key` makes a repeat answer the first one's
// result: every keyed import has a job row, so any instance finds it.

/** Seconds a caller refused for a full instance is told to wait (Retry-After). */
const BUSY_RETRY_SECONDS = 10;

const MULTIPART_OVERHEAD = 64 * 1024;

/** Seconds a client is told to wait before asking about an unfinished job again (Retry-After). */
const JOB_RETRY_SECONDS = 1;

const ImportQuery = Type.Object({
  dryRun: Type.Optional(
    Type.Unsafe<'true' | 'false'>({
      type: 'string',
      enum: ['true', 'false'],
      description:
        '`true`: a dry run. Reads and checks the file as the import would (every check, the same 4xx answers) and answers 200 with the report it would give; creates nothing. `false` (default): import.',
    }),
  ),
  visibility: Type.Optional(Type.Unsafe<'gm'>({ type: 'string', enum: ['gm'], description: '`gm`: every imported thing and arc is GM-only, whatever the file says. Any other value is 400. Absent: as the file says (a vault: visible to all).' })),
});

const ImportHeaders = Type.Object({
  prefer: Type.Optional(
    Type.String({
      description:
        '`respond-async` (RFC 7240, among other preferences, any case): answer 202 once the file is received and import in the background; the import goes on if the client leaves. Ignored by a dry run.',
    }),
  ),
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: '^[\\x20-\\x7E]{1,255}$',
      description:
        '1 to 255 printable ASCII characters (else 400). A repeat by the same user with the same key within 24 hours answers the first import’s result instead of importing again: 201 with the campaign as it is now and the first report (sync), or 202 with the same job (async); its body is not read. While the first still runs, an async repeat gets 202 with its job, a sync one 409 `idempotency_key_in_use`. A first import that failed lets the key be used again. Keys of different users never meet. Dry runs ignore it.',
    }),
  ),
});

const ImportJobParams = Type.Object({ importId: Type.String({ description: 'the id of the job (its `Location`)' }) });

/** The query of an import: `dryRun` and `visibility`, each at most once; else 400 invalid_query. */
function importOptions(query: { dryRun?: string | undefined; visibility?: string | undefined }): ImportOptions {
  const issues = [];
  if (query.dryRun !== undefined && query.dryRun !== 'true' && query.dryRun !== 'false') issues.push({ path: '/dryRun', message: 'must be true or false' });
  if (query.visibility !== undefined && query.visibility !== 'gm') issues.push({ path: '/visibility', message: 'must be gm (every imported record GM-only), or left out' });
  if (issues.length > 0) throw errors.invalidQuery(issues);
  return { dryRun: query.dryRun === 'true', visibility: query.visibility === 'gm' ? 'gm' : undefined };
}

const unfinished = (job: ImportJobRow) => job.status === 'queued' || job.status === 'running';

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
  // The imports running on this instance (synchronous ones and background jobs), by user.
  const running = new Set<string>();
  const jobs = app.importJobs;
  // A job stops when its instance closes: it is recorded as failed (nothing created) before the database closes.
  app.addHook('onClose', () => jobs.close());

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

  /** The problem document an import's failure is answered with (stored as a failed job's `error`). */
  function failureOf(error: unknown, log: FastifyRequest['log'], inBackground: boolean) {
    if (error instanceof AppError) return problem(error.code, error.message, error.issues);
    if (error instanceof ImportCancelled) return inBackground ? interruptedProblem() : problem('bad_request', 'The import was stopped: its client went away.');
    log.error({ err: error }, 'import failed');
    return problem('internal_error', 'Something went wrong on our side; the error has been logged.');
  }

  /**
   * The job as answered (202, GET), with its campaign as it is now, seen with the caller's role in
   * it (as players see it, with `Loreforge-View: player`, as GET /api/campaigns does).
   */
  async function jobAnswer(job: ImportJobRow, userId: string, request: FastifyRequest) {
    const campaign = job.status === 'done' && job.campaign_id !== null ? await findJobCampaign(database.kysely, job.campaign_id, userId) : undefined;
    if (!campaign) return presentImportJob(job);
    const view = makeView(campaign, campaign.role, request.headers[VIEW_HEADER] === 'player');
    if (view.players) view.hidden = await loadHiddenRecords(database.kysely, campaign.id);
    return presentImportJob(job, { row: campaign, view });
  }

  function sendJob(reply: FastifyReply, status: 200 | 202, body: ReturnType<typeof presentImportJob>): FastifyReply {
    if (status === 202) void reply.header('location', `/api/imports/${body.id}`).header('preference-applied', 'respond-async');
    if (body.status === 'queued' || body.status === 'running') void reply.header('retry-after', String(JOB_RETRY_SECONDS));
    return reply.code(status).send(body);
  }

  /** An answer sent before the body was read: the connection is not reused, what remains of the body is let go. */
  function withoutBody(request: FastifyRequest, reply: FastifyReply): void {
    void reply.header('connection', 'close');
    request.raw.resume();
  }

  /**
   * A repeat of an import with this Idempotency-Key, answered with the first one's result; undefined
   * when there is none to answer (no such key, the first failed, it is older than a day, or a
   * synchronous repeat finds its campaign gone): then the key is free and this import goes ahead.
   * True when it answered. (Never resolves to the reply: a reply is thenable, and awaiting it waits
   * for the answer to be sent and gives undefined.)
   */
  async function answerRepeat(request: FastifyRequest, reply: FastifyReply, userId: string, key: string, respondAsync: boolean): Promise<boolean> {
    let job = await findImportJobByKey(database.kysely, userId, key);
    if (job && unfinished(job) && (await jobs.failIfStale(job.id))) job = await findImportJobByKey(database.kysely, userId, key);
    if (!job) return false;
    if (job.status === 'failed' || job.created_at < addMs(nowIso(), -IDEMPOTENCY_WINDOW_MS)) {
      await releaseImportKey(database.kysely, userId, key, addMs(nowIso(), -IDEMPOTENCY_WINDOW_MS));
      return false;
    }
    if (respondAsync) {
      const answer = await jobAnswer(job, userId, request);
      withoutBody(request, reply);
      await sendJob(reply, 202, answer);
      return true;
    }
    if (unfinished(job)) {
      withoutBody(request, reply);
      throw errors.idempotencyKeyInUse(job.id);
    }
    const campaign = job.campaign_id === null ? undefined : await findJobCampaign(database.kysely, job.campaign_id, userId);
    if (!campaign) {
      await deleteImportJob(database.kysely, job.id);
      return false;
    }
    withoutBody(request, reply);
    const view = makeView(campaign, campaign.role, false);
    await reply
      .code(201)
      .header('location', `/api/campaigns/${campaign.slug}`)
      .header('etag', campaignEtag(view, campaign))
      .send({ ...presentCampaign(campaign, view), import: JSON.parse(job.report ?? 'null') as never });
    return true;
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
          '`dryRun=true`: 200 with the report the import would give, creating nothing (every check is made and answered alike, except that text grown past 256 KiB by rewriting image URLs is found only by the import itself). ' +
          '`visibility=gm`: every imported thing and arc is GM-only. ' +
          '`Prefer: respond-async`: 202 once the file is received, `Location: /api/imports/{id}` and the job; the import runs in the background and goes on when the client leaves; follow it with GET /api/imports/{id}. ' +
          '`Idempotency-Key`: a repeat within 24 hours answers the first import’s result (see the header). ' +
          'At most IMPORT_MAX_BYTES (200 MiB; 413 `import_too_large` past it); a JSON document at most 64 MiB; at most 50,000 zip entries; ' +
          'at most IMPORT_MAX_EXPANDED_BYTES (2 GiB) of uncompressed bytes read from the file in all (400 `invalid_import` naming the budget past it; a zip whose entries declare more is refused before one is read); ' +
          'imported text within the limits of text sent to the API (256 KiB of JSON each, after image URLs are rewritten; 400 `invalid_import` naming the entry); ' +
          'one import per user at a time, background jobs and dry runs included, also across instances while a job of the user’s (background or keyed) is alive on another (429 `import_in_progress`) and at most IMPORTS_MAX_CONCURRENT (2) on an instance (429 `rate_limited` with Retry-After); ' +
          'at most IMPORTS_MAX_PER_USER_PER_HOUR (20) imports an hour, dry runs included (429, counted before the file is read; a repeat answered by its Idempotency-Key is not counted). ' +
          'The JSON document and Markdown are parsed off the server’s event loop, within time and memory bounds (400 `invalid_import` naming the file past them). ' +
          'A synchronous import (or dry run) whose client disconnects stops within seconds and creates nothing. ' +
          'Uploaded images in the file are stored with this service’s image host and need premium, as uploads do (403 `premium_required`; the json document, without image bytes, needs none).',
        tags: ['portability'],
        querystring: ImportQuery,
        headers: ImportHeaders,
        documentedBody: {
          contentTypes: ['multipart/form-data', 'application/zip', 'application/json'],
          schema: Type.Union([
            Type.Object({ file: Type.String({ contentMediaType: 'application/octet-stream', description: 'the export (zip or JSON)' }) }, { description: 'multipart/form-data: the file in the field `file`' }),
            Type.String({ contentMediaType: 'application/zip', description: 'application/zip: the archive or vault itself' }),
            CampaignDocument,
          ]),
          description: 'A form with the file in the field `file` (multipart/form-data), the zip itself (application/zip), or the `json` export document (application/json)',
        },
        responseHeaders: { 201: ['location', 'etag'], 202: ['location', 'preference-applied', 'retry-after'] },
        response: {
          200: Type.Object(ImportReport.properties, { description: 'A dry run (`dryRun=true`): the report the import would give; nothing was created' }),
          201: ImportedCampaign,
          202: Type.Object(ImportJob.properties, { description: '`Prefer: respond-async`: the file is received and the import runs in the background: the job (`Location` is its URL)' }),
          ...problems(400, 401, 403, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request).user;
      const refuse = (error: AppError): never => {
        withoutBody(request, reply);
        throw error;
      };
      let options: ImportOptions;
      try {
        options = importOptions(request.query);
      } catch (error) {
        return refuse(error as AppError);
      }
      const respondAsync = !options.dryRun && prefersAsync(request.headers.prefer);
      const keyHeader = request.headers['idempotency-key'];
      const key = options.dryRun || typeof keyHeader !== 'string' ? undefined : keyHeader;
      if (key !== undefined) {
        if (await answerRepeat(request, reply, caller.id, key, respondAsync)) return reply;
      }
      if (running.has(caller.id)) refuse(errors.importInProgress());
      if (running.size >= config.importsMaxConcurrent) refuse(errors.rateLimited('This server is running as many imports as it takes at once', BUSY_RETRY_SECONDS));
      running.add(caller.id);
      // Let go before the answer is sent: its client may send the next import the moment it has it.
      // A background job holds the slot until it ends and lets go itself.
      let handedOver = false;
      const release = () => {
        if (!handedOver) running.delete(caller.id);
      };
      try {
        // One import per user across instances too: a job of theirs alive on another instance.
        if (await jobs.busyElsewhere(caller.id)) refuse(errors.importInProgress());
        return await importFor(request, reply, caller, options, respondAsync, key, release, () => (handedOver = true));
      } finally {
        release();
      }
    },
  );

  async function importFor(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: UserRow,
    options: ImportOptions,
    respondAsync: boolean,
    key: string | undefined,
    release: () => void,
    handOver: () => void,
  ): Promise<FastifyReply> {
    // Counted before the body is read: an import is the heaviest request there is.
    const decision = await takeSlot(database.kysely, { key: limitKeys.importsByUser(caller.id), max: config.importsMaxPerUserPerHour, windowMs: HOUR_MS });
    if (decision.limited) {
      withoutBody(request, reply);
      throw errors.rateLimited('Too many imports from this account', decision.resetSeconds);
    }
    // A job row for a background import and for a keyed one (a repeat finds it on any instance),
    // held by this instance from now on (touched, never taken for dead here) until it ends.
    const stop = new AbortController();
    const jobId = respondAsync || key !== undefined ? newImportJobId() : undefined;
    if (jobId !== undefined) {
      try {
        await insertImportJob(database.kysely, { id: jobId, userId: caller.id, status: respondAsync ? 'queued' : 'running', idempotencyKey: key ?? null, instanceId: jobs.instanceId, now: nowIso() });
      } catch (error) {
        // The same key, sent again at the same moment to another instance, which took it first.
        if (classifyDatabaseError(error) !== 'unique' || key === undefined) throw error;
        if (await answerRepeat(request, reply, caller.id, key, respondAsync)) return reply;
        withoutBody(request, reply);
        throw errors.idempotencyKeyInUse();
      }
      jobs.hold(jobId, stop);
    }
    let jobRuns = false;
    // The client going away (the connection closes before the answer is sent) stops a synchronous import.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.on('close', onClose);
    // A background job stops only when this instance closes.
    const budget = new ImportBudget(config.importMaxExpandedBytes, respondAsync ? stop.signal : gone.signal);
    const file = importSpoolFile();
    let spoolHandedOver = false;
    try {
      let received;
      try {
        received = await receive(request, file);
      } catch (error) {
        if (!request.raw.complete) {
          // Answered before the whole body was read: do not reuse the connection.
          withoutBody(request, reply);
        }
        throw error;
      }
      const source: ImportSource = { file, kind: await fileKind(file), fileName: received.fileName, label: received.label };
      const importer = { ownerId: caller.id, mayStoreImages: hasPremium(caller, config) };
      if (options.dryRun) {
        const report = await dryRunImport(database, imageHost, source, importer, config.maxUploadBytes, budget, options);
        release();
        return await reply.code(200).send(presentReport(report));
      }
      const work = () => importCampaign(database, imageHost, source, importer, config.maxUploadBytes, budget, options);
      const describe = (result: Awaited<ReturnType<typeof work>>) => ({ status: 'done' as const, campaignId: result.campaign.id, report: presentReport(result.report) });
      if (respondAsync) {
        const id = jobId!;
        handOver();
        spoolHandedOver = true;
        reply.raw.off('close', onClose);
        // The slot and the spooled file are let go as soon as the import has ended, before its end is recorded.
        const settled = () => {
          running.delete(caller.id);
          fs.rm(file, { force: true }).catch((error: unknown) => request.log.warn({ err: error }, 'a spooled import could not be removed'));
        };
        jobRuns = true;
        jobs.run(id, budget, work, describe, (error) => failureOf(error, request.log, true), settled).catch(() => {});
        const job = await findImportJob(database.kysely, caller.id, id);
        return sendJob(reply, 202, job ? presentImportJob(job) : { id, status: 'queued', progress: { done: 0, total: 0 }, createdAt: nowIso(), updatedAt: nowIso() });
      }
      jobRuns = jobId !== undefined;
      const { campaign, report } = jobId === undefined ? await work() : await jobs.run(jobId, budget, work, describe, (error) => failureOf(error, request.log, false));
      const view = makeView(campaign, 'owner', false);
      release();
      return await reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}`)
        .header('etag', campaignEtag(view, campaign))
        .send({ ...presentCampaign(campaign, view), import: presentReport(report) });
    } catch (error) {
      if (error instanceof ImportCancelled) {
        // Nobody to answer: the connection is gone. Logged as what it is, not as a fault.
        request.log.info('import stopped: its client went away');
        throw new HttpError('bad_request', 'The import was stopped: its client went away.');
      }
      throw error;
    } finally {
      reply.raw.off('close', onClose);
      if (!spoolHandedOver) await fs.rm(file, { force: true });
      if (jobId !== undefined && !jobRuns) {
        // Never run (the upload failed, or a dry run): the job goes, and its key with it.
        await jobs.drop(jobId);
        await deleteImportJob(database.kysely, jobId);
      }
    }
  }

  app.get(
    '/imports/:importId',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'getImportJob',
        summary: 'Follow an import job',
        description:
          'An import sent with `Prefer: respond-async`: its status, progress and, once `done`, the new campaign and the import report; once `failed`, the problem document the import would have answered (nothing was created). ' +
          'Only the user who started it sees it: any other caller gets 404, as for an id that does not exist. ' +
          'The server that received the job touches it from the start of its upload until it ends; a job whose server stopped while it ran (crashed, killed, restarted) is answered `failed` (`service_unavailable`) once its heartbeat is older than IMPORT_JOB_STALE_MS (30 s). A job failed so never becomes `done`: whatever its import created is erased. ' +
          'While it is `queued` or `running`, `Retry-After` says when to ask again. `campaign` honours `Loreforge-View: player` as GET /api/campaigns does. Jobs are erased 48 hours after they started.',
        tags: ['portability'],
        params: ImportJobParams,
        responseHeaders: { 200: ['retry-after'] },
        response: { 200: ImportJob, ...problems(404) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request).user;
      const id = request.params.importId;
      // Not the shape of a job id (a NUL byte, invalid text…): no job, without asking the database.
      if (!IMPORT_JOB_ID.test(id)) throw errors.importJobNotFound();
      let job = await findImportJob(database.kysely, caller.id, id);
      if (job && unfinished(job) && (await jobs.failIfStale(job.id))) job = await findImportJob(database.kysely, caller.id, id);
      if (!job) throw errors.importJobNotFound();
      void reply.header('vary', 'Loreforge-View');
      return sendJob(reply, 200, await jobAnswer(job, caller.id, request));
    },
  );
}
