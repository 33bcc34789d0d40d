import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { IMAGE_CACHE_CONTROL, parseImageRef } from '../../images/image-host.js';
import { checkUploadGrant, receiveLocalUpload } from '../../images/local-uploads.js';
import type { LocalImageHost } from '../../images/local.js';
import { errors } from '../../domain/errors.js';
import { ifNoneMatchAdmits } from '../conditional.js';
import { HttpError } from '../errors.js';
import { problems } from '../schemas/common.js';

// The local image host's own endpoints, outside /api: no session, no JSON. The upload URL is the
// credential (a random 128-bit image id naming a live grant); the image URL is public.
//   PUT  /images/uploads/:campaignId/:imageId   raw bytes
//   POST /images/uploads/:campaignId/:imageId   multipart/form-data, field "file"
//   GET  /images/:campaignId/:imageId.:ext      the stored image

// Boundaries and part headers around the file in a multipart body.
const MULTIPART_OVERHEAD = 16 * 1024;

// Uploads and images carry no ambient credential, so any origin may send and read them (a browser
// front end on another origin needs this); the JSON API itself never grants CORS.
const CORS = { 'access-control-allow-origin': '*' };
const CORS_PREFLIGHT = {
  ...CORS,
  'access-control-allow-methods': 'PUT, POST',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};

const UploadParams = Type.Object({ campaignId: Type.String(), imageId: Type.String() });
const ImageParams = Type.Object({ campaignId: Type.String(), file: Type.String() });
const UploadReceived = Type.Object({
  imageId: Type.String(),
  contentType: Type.String({ description: 'the format detected from the bytes' }),
  byteSize: Type.Integer(),
});

export async function localImageRoutes(instance: FastifyInstance, options: { host: LocalImageHost }): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app;
  const { host } = options;

  // Upload bodies are read by the route as a stream: never buffered, never parsed as JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  await app.register(fastifyMultipart, { isPartAFile: (fieldName) => fieldName === 'file' });

  async function upload(request: FastifyRequest<{ Params: { campaignId: string; imageId: string } }>, reply: FastifyReply) {
    void reply.headers(CORS);
    try {
      const ref = parseImageRef(request.params.campaignId, request.params.imageId);
      if (!ref) throw errors.uploadUrlNotFound();
      const multipart = request.method === 'POST';
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > host.maxBytes + (multipart ? MULTIPART_OVERHEAD : 0)) {
        throw errors.imageTooLarge(host.maxBytes);
      }
      await checkUploadGrant(database, ref, new Date());

      let source: Readable = request.raw;
      let wasTruncated = () => false;
      if (multipart) {
        if (!request.isMultipart()) {
          throw new HttpError('unsupported_media_type', 'POST the image as multipart/form-data with a "file" field, or PUT the raw bytes.');
        }
        const part = await request.file({
          limits: { fileSize: host.maxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 20, headerPairs: 50 },
          throwFileSizeLimit: false,
        });
        if (!part) throw new HttpError('bad_request', 'The form has no file: send the image in a field named "file".');
        source = part.file;
        wasTruncated = () => part.file.truncated;
      }
      const received = await receiveLocalUpload(database, host, ref, source, wasTruncated);
      return await reply.code(200).send(received);
    } catch (error) {
      if (request.raw.destroyed && !request.raw.complete) {
        // The client went away mid-upload; nothing was kept and nobody is left to answer.
        throw new HttpError('bad_request', 'The upload was interrupted before the whole file arrived.');
      }
      if (!request.raw.complete) {
        // Answered before the whole body was read: let the rest drain, and do not reuse the connection.
        void reply.header('connection', 'close');
        request.raw.resume();
      }
      throw error;
    }
  }

  const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'];
  const uploadSchema = {
    tags: ['images'],
    params: UploadParams,
    response: { 200: UploadReceived, ...problems(400, 404, 409, 413, 415, 500) },
    responseHeaders: Object.fromEntries([200, 400, 404, 409, 413, 415, 500].map((status) => [status, ['access-control-allow-origin'] as const])),
  };
  const Bytes = Type.String({ contentMediaType: 'application/octet-stream', description: 'the image file' });
  app.put(
    '/images/uploads/:campaignId/:imageId',
    {
      config: { auth: 'none' },
      schema: {
        ...uploadSchema,
        operationId: 'uploadImage',
        summary: 'Upload an image to an upload URL',
        description:
          'The local image host. Send the raw bytes of one image (PNG, JPEG, GIF, WebP or AVIF, recognised from the bytes; at most MAX_UPLOAD_BYTES) to the `uploadURL` from upload-url, within 30 minutes. The URL itself is the credential: no cookie or token. Then confirm the upload.',
        documentedBody: { contentTypes: ['application/octet-stream', ...IMAGE_TYPES], schema: Bytes, description: 'The image file, as it is' },
      },
    },
    upload,
  );
  app.post(
    '/images/uploads/:campaignId/:imageId',
    {
      config: { auth: 'none' },
      schema: {
        ...uploadSchema,
        operationId: 'uploadImageForm',
        summary: 'Upload an image to an upload URL, as a form',
        description:
          'The local image host, for HTML forms: the same as PUT, with the image sent as multipart/form-data in a field named `file` (other fields are ignored).',
        documentedBody: {
          contentTypes: ['multipart/form-data'],
          schema: Type.Object({ file: Bytes }),
          description: 'A form with the image in the field `file`',
        },
      },
    },
    upload,
  );
  app.options('/images/uploads/:campaignId/:imageId', { config: { auth: 'none' }, schema: { hide: true } }, (_request, reply) =>
    reply.code(204).headers(CORS_PREFLIGHT).send(),
  );

  app.get(
    '/images/:campaignId/:file',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'getImage',
        summary: 'A stored image',
        description:
          'The local image host: the image at an asset’s `url`, with the type detected at upload, or one of its WebP variants (an asset’s `variants[].url`: the original’s name with `-480`, `-960` or `-1600` and `.webp`). Its bytes never change (`Cache-Control: immutable`); If-None-Match with its ETag answers 304. Public: no cookie or token.',
        tags: ['images'],
        params: ImageParams,
        headers: Type.Object({ 'if-none-match': Type.Optional(Type.String({ description: 'The ETag of the copy you hold' })) }),
        response: {
          200: {
            description: 'The image',
            content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: Type.String({ contentMediaType: type }) }])),
          },
          304: { description: 'Not Modified: the copy you hold is the image; no body', type: 'null' },
          ...problems(404, 500),
        },
        responseHeaders: { 200: ['etag', 'cache-control', 'access-control-allow-origin'], 304: ['etag', 'cache-control', 'access-control-allow-origin'] },
      },
    },
    async (request, reply) => {
      const image = await host.open(request.params.campaignId, request.params.file);
      if (!image) throw errors.imageNotFound();
      void reply.headers({
        ...CORS,
        'content-type': image.contentType,
        etag: image.etag,
        'cache-control': IMAGE_CACHE_CONTROL,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
        'cross-origin-resource-policy': 'cross-origin',
      });
      if (ifNoneMatchAdmits(request.headers['if-none-match'], image.etag)) {
        await image.close();
        return reply.code(304).send();
      }
      void reply.header('content-length', image.byteSize);
      return reply.send(image.stream);
    },
  );
}
