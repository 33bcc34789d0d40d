/** The current time as the ISO 8601 UTC string with milliseconds that the API and the database use. */
export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}

export function addMs(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}
