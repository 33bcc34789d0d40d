import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { IMAGE_CACHE_CONTROL } from './image-host.js';

// Object-store steps of the S3 image host (s3.ts).

/** Stores `bytes` as a public image object: its type, immutable caching, shown inline. */
export async function putPublicObject(client: S3Client, bucket: string, key: string, bytes: Buffer, contentType: string): Promise<void> {
  await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: bytes,
      ContentLength: bytes.length,
      ContentType: contentType,
      CacheControl: IMAGE_CACHE_CONTROL,
      ContentDisposition: 'inline',
    }),
  );
}

/** Deletes the objects under `prefix` last modified before `olderThan`; returns how many. */
export async function deleteOlderThan(client: S3Client, bucket: string, prefix: string, olderThan: Date): Promise<number> {
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    const old = (page.Contents ?? []).filter((o) => o.Key !== undefined && o.LastModified !== undefined && o.LastModified < olderThan);
    if (old.length > 0) {
      await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: old.map((o) => ({ Key: o.Key })), Quiet: true } }));
      removed += old.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return removed;
}
