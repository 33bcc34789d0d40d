// The parser of the release before migration 0028 (src/db/caller-cache.ts at 0d173fc, `invalidate`):
// one notice per payload, split at every colon. What it would do with a payload.
export function oldInstanceReads(payload: string): { dropsAll: true } | { dropsAll: false; versions: Map<number, number>; dropsCampaigns: number[] } {
  const [kind = '', first = '', second = ''] = payload.split(':');
  if (!['u', 's', 't', 'c', 'm', 'v'].includes(kind)) return { dropsAll: true };
  const versions = new Map<number, number>();
  const dropsCampaigns: number[] = [];
  if (kind === 'v') {
    if (Number.isSafeInteger(Number(second))) versions.set(Number(first), Number(second));
    else dropsCampaigns.push(Number(first));
  }
  return { dropsAll: false, versions, dropsCampaigns };
}
