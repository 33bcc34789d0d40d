// Uploading an image for a premium user, as the API's images guide says: an upload URL for the
// label, the file's bytes PUT to it (XMLHttpRequest, for its progress events), then the
// confirmation that makes it an asset of the campaign.
import { ApiError } from '../api/client';
import { confirmUpload, requestUpload } from './api';

export interface UploadedAsset {
  id: number;
  url: string;
  label: string;
}

function put(url: string, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve();
      else {
        let problem: ApiError['problem'];
        try {
          problem = JSON.parse(xhr.responseText) as ApiError['problem'];
        } catch {
          problem = undefined;
        }
        reject(new ApiError(xhr.status, problem));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, undefined));
    xhr.send(file);
  });
}

export async function uploadImage(campaignSlug: string, file: File, label: string, onProgress: (fraction: number) => void): Promise<UploadedAsset> {
  const grant = await requestUpload(campaignSlug, label);
  await put(grant.uploadURL, file, onProgress);
  const confirmed = await confirmUpload(campaignSlug, grant.imageId, label);
  return { id: confirmed.asset.id, url: confirmed.asset.url, label };
}
