// Record ids are PostgreSQL `integer`s: a larger number can name no record and must never reach a
// query (PostgreSQL would refuse it as out of range).
export const MAX_RECORD_ID = 2_147_483_647;

const POSITIVE_INTEGER = /^[1-9][0-9]{0,15}$/;

/** A positive id written in decimal (path parameter or query value); undefined when malformed. */
export function parseIdText(value: string): number | undefined {
  return POSITIVE_INTEGER.test(value) ? Number(value) : undefined;
}

/** Whether `id` could be the id of a stored record. */
export function isStorableId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_RECORD_ID;
}
