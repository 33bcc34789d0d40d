/**
 * What a write expects of the record's version, taken from the client's If-Match by the HTTP layer
 * (http/conditional.ts). A repository asks it about the record it found; when it does not admit the
 * record the write fails with precondition_failed and changes nothing. Absent: the last write wins.
 */
export interface ExpectedVersion {
  admits(id: number, version: number): boolean;
}
