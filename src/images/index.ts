import path from 'node:path';
import type { Config } from '../config.js';
import type { ImageHost } from './image-host.js';
import { LocalImageHost } from './local.js';

/** The image host the settings choose. The S3 client is loaded only when it is used. */
export async function createImageHost(config: Config): Promise<ImageHost> {
  if (config.imageHost === 's3') {
    if (!config.s3) throw new Error('IMAGE_HOST=s3 without S3 settings');
    const { S3ImageHost } = await import('./s3.js');
    return new S3ImageHost(config.s3, config.maxUploadBytes);
  }
  return new LocalImageHost({ root: path.join(config.dataDir, 'images'), publicBaseUrl: config.publicBaseUrl, maxBytes: config.maxUploadBytes });
}
