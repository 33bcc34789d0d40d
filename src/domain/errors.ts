// One catalogue of every error the service answers with (a stable snake_case code, its HTTP status
// and title), one error class, and one named builder per failure, so each message is written once.
// Domain rules, repositories and services throw `errors.*`; the HTTP layer (http/errors.ts) turns any
// AppError into a problem document and adds HttpError only for failures of the transport itself.

export const errorCatalogue = {
  validation_failed: { status: 400, title: 'Bad Request' },
  malformed_json: { status: 400, title: 'Bad Request' },
  invalid_query: { status: 400, title: 'Bad Request' },
  invalid_id: { status: 400, title: 'Bad Request' },
  invalid_reference: { status: 400, title: 'Bad Request' },
  arc_cycle: { status: 400, title: 'Bad Request' },
  id_mismatch: { status: 400, title: 'Bad Request' },
  bad_request: { status: 400, title: 'Bad Request' },
  image_id_not_issued: { status: 400, title: 'Bad Request' },
  upload_expired: { status: 400, title: 'Bad Request' },
  upload_not_completed: { status: 400, title: 'Bad Request' },
  upload_rejected: { status: 400, title: 'Bad Request' },
  invalid_import: { status: 400, title: 'Bad Request' },
  invalid_password: { status: 400, title: 'Bad Request' },
  unauthenticated: { status: 401, title: 'Unauthorized' },
  invalid_credentials: { status: 401, title: 'Unauthorized' },
  premium_required: { status: 403, title: 'Forbidden' },
  cross_site_request: { status: 403, title: 'Forbidden' },
  role_forbidden: { status: 403, title: 'Forbidden' },
  session_required: { status: 403, title: 'Forbidden' },
  route_not_found: { status: 404, title: 'Not Found' },
  campaign_not_found: { status: 404, title: 'Not Found' },
  thing_not_found: { status: 404, title: 'Not Found' },
  thing_type_not_found: { status: 404, title: 'Not Found' },
  arc_not_found: { status: 404, title: 'Not Found' },
  link_not_found: { status: 404, title: 'Not Found' },
  token_not_found: { status: 404, title: 'Not Found' },
  asset_not_found: { status: 404, title: 'Not Found' },
  upload_url_not_found: { status: 404, title: 'Not Found' },
  image_not_found: { status: 404, title: 'Not Found' },
  member_not_found: { status: 404, title: 'Not Found' },
  invitation_not_found: { status: 404, title: 'Not Found' },
  trash_entry_not_found: { status: 404, title: 'Not Found' },
  revision_not_found: { status: 404, title: 'Not Found' },
  import_job_not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  request_timeout: { status: 408, title: 'Request Timeout' },
  conflict: { status: 409, title: 'Conflict' },
  slug_taken: { status: 409, title: 'Conflict' },
  name_taken: { status: 409, title: 'Conflict' },
  email_taken: { status: 409, title: 'Conflict' },
  upload_already_received: { status: 409, title: 'Conflict' },
  owner_must_transfer: { status: 409, title: 'Conflict' },
  owner_of_shared_campaign: { status: 409, title: 'Conflict' },
  restore_container_first: { status: 409, title: 'Conflict' },
  idempotency_key_in_use: { status: 409, title: 'Conflict' },
  invitation_unavailable: { status: 410, title: 'Gone' },
  cursor_expired: { status: 410, title: 'Gone' },
  reset_token_unavailable: { status: 410, title: 'Gone' },
  precondition_failed: { status: 412, title: 'Precondition Failed' },
  payload_too_large: { status: 413, title: 'Content Too Large' },
  image_too_large: { status: 413, title: 'Content Too Large' },
  import_too_large: { status: 413, title: 'Content Too Large' },
  uri_too_long: { status: 414, title: 'URI Too Long' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  unsupported_image_type: { status: 415, title: 'Unsupported Media Type' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  import_in_progress: { status: 429, title: 'Too Many Requests' },
  header_fields_too_large: { status: 431, title: 'Request Header Fields Too Large' },
  internal_error: { status: 500, title: 'Internal Server Error' },
  upload_verification_failed: { status: 500, title: 'Internal Server Error' },
  service_unavailable: { status: 503, title: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * A problem with one field of the input. `path` is a JSON pointer into the request body or query
 * (`/newThing/name`) when the HTTP layer checked it; a repository names the field relative to the
 * record (`typeId`), and the route places it under its body's pointer (http/errors.ts `atBody`).
 */
export interface FieldIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly issues?: FieldIssue[],
    /** For rate_limited: whole seconds until the client may try again (the Retry-After header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

/** The kinds of record whose names the messages use. */
export type RecordKind = 'campaign' | 'thing' | 'thing type' | 'arc';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Every failure the domain, the repositories and the services raise, each message written here once. */
export const errors = {
  /** An import file that cannot be imported: `entry` names the file in the archive (or the document), `problem` what is wrong. */
  invalidImport: (entry: string, problem: string) =>
    new AppError('invalid_import', `${entry}: ${problem}`, [{ path: entry, message: problem }]),
  importInProgress: () => new AppError('import_in_progress', 'An import of yours is still running; send this one once it has finished.'),
  importJobNotFound: () => new AppError('import_job_not_found', 'You have no import job with this id.'),
  /** A synchronous import repeated with the Idempotency-Key of one still running. */
  idempotencyKeyInUse: (jobId?: string) =>
    new AppError(
      'idempotency_key_in_use',
      `An import with this Idempotency-Key is still running${jobId === undefined ? '' : ` (GET /api/imports/${jobId} follows it)`}; send the repeat once it has finished, when it answers the first one's result.`,
    ),
  /** The instance running an import job stopped (crashed, killed, shut down) before the job ended. */
  importInterrupted: () =>
    new AppError('service_unavailable', 'The server running this import stopped before it finished; nothing was created. Send the file again.'),
  importTooLarge: (maxBytes: number) => new AppError('import_too_large', `The file is larger than the ${maxBytes} bytes this service imports (IMPORT_MAX_BYTES).`),
  premiumRequiredForImport: (images: number) =>
    new AppError(
      'premium_required',
      `The file holds ${plural(images, 'uploaded image')}; storing uploaded images needs premium, which the administrator of this server grants. Import the json export instead (its images stay at their URLs), or ask the administrator.`,
    ),
  validationFailed: (issues: FieldIssue[]) => new AppError('validation_failed', 'The request is not valid.', issues),
  invalidQuery: (issues: FieldIssue[]) => new AppError('invalid_query', 'The query string is not valid.', issues),
  invalidId: (what: string, value: string) => new AppError('invalid_id', `"${value}" is not ${what} id (a positive integer).`),

  campaignNotFound: (slug?: string) =>
    new AppError('campaign_not_found', slug === undefined ? 'Campaign not found.' : `No campaign "${slug}" was found.`),
  thingNotFound: (slug: string) => new AppError('thing_not_found', `No thing "${slug}" was found in this campaign.`),
  thingTypeNotFound: (id: number | string) => new AppError('thing_type_not_found', `No thing type ${id} was found in this campaign.`),
  arcNotFound: (slug: string) => new AppError('arc_not_found', `No arc "${slug}" was found in this campaign.`),
  linkedRecordGone: () => new AppError('arc_not_found', 'The thing or the arc was deleted meanwhile.'),
  linkNotFound: (thingSlug: string, arcSlug: string) =>
    new AppError('link_not_found', `The thing "${thingSlug}" is not linked to the arc "${arcSlug}".`),
  tokenNotFound: (id: number | string) => new AppError('token_not_found', `You have no API token ${id}.`),
  assetNotFound: (id: number | string) => new AppError('asset_not_found', `This campaign has no asset ${id}.`),
  trashEntryNotFound: (kind: string, id: number | string) => new AppError('trash_entry_not_found', `This campaign's trash holds no ${kind} ${id}.`),
  trashedCampaignNotFound: (id: number | string) => new AppError('trash_entry_not_found', `Your trash holds no campaign ${id}.`),
  restoreContainerFirst: (typeName: string | undefined) =>
    new AppError(
      'restore_container_first',
      `This thing's type${typeName === undefined ? '' : ` “${typeName}”`} is in the trash: restore the type first, which brings back the things deleted with it.`,
    ),

  slugTaken: (kind: 'campaign' | 'thing' | 'arc', slug: string) =>
    new AppError(
      'slug_taken',
      kind === 'campaign'
        ? `The slug "${slug}" is already taken by another campaign.`
        : `The slug "${slug}" is already taken by another ${kind} of this campaign.`,
    ),
  thingTypeNameTaken: (name: string) =>
    new AppError('name_taken', `This campaign already has a thing type named "${name}" (names are compared case-insensitively).`),
  emailTaken: () => new AppError('email_taken', 'An account with this email address already exists.'),
  /** The record's version is not the one the client's If-Match named (or it changed while we wrote). */
  preconditionFailed: (kind: RecordKind) =>
    new AppError('precondition_failed', `The ${kind} has changed since the version given in If-Match; reload it and try again.`),

  unknownThingType: (typeId: number, field: string) =>
    new AppError('invalid_reference', `No thing type ${typeId} exists in this campaign.`, [
      { path: field, message: 'must be the id of a thing type of this campaign' },
    ]),
  unknownLinkTargets: (issues: FieldIssue[]) => new AppError('invalid_reference', 'A link property names a record this campaign does not have.', issues),
  unknownParentArc: (parentArcId: number, field: string) =>
    new AppError('invalid_reference', 'The parent arc does not exist in this campaign.', [
      { path: field, message: `names no arc of this campaign (${parentArcId})` },
    ]),
  arcOwnParent: (field: string) =>
    new AppError('arc_cycle', 'An arc cannot be its own parent.', [{ path: field, message: 'must not be the arc itself' }]),
  arcCycle: (field: string) =>
    new AppError('arc_cycle', 'The parent arc lies below this arc; the hierarchy would become a loop.', [
      { path: field, message: 'must not be one of the arc’s descendants' },
    ]),
  idMismatch: (bodyId: number, pathId: number, field: string) =>
    new AppError('id_mismatch', `The body names thing type ${bodyId} but the path names ${pathId}.`, [
      { path: field, message: 'must equal the id in the path' },
    ]),

  invalidCredentials: () => new AppError('invalid_credentials', 'The email address or the password is wrong.'),
  invalidPassword: (path: string) =>
    new AppError('invalid_password', 'The password is wrong.', [{ path, message: 'is not the password of this account' }]),
  sessionRequired: () =>
    new AppError('session_required', 'API tokens are created only when signed in with a password (a session), never with another token.'),
  resetTokenUnavailable: () =>
    new AppError('reset_token_unavailable', 'This reset link cannot be used: it has expired, been used or never existed. Ask the administrator for a new one.'),
  ownerOfSharedCampaign: (campaigns: { slug: string; name: string }[]) =>
    new AppError(
      'owner_of_shared_campaign',
      `You own ${plural(campaigns.length, 'campaign')} that other members share: ${campaigns.map((c) => `"${c.name}"`).join(', ')}. Transfer each to another member (or remove its members) first.`,
      campaigns.map((c) => ({ path: `/campaigns/${c.slug}`, message: c.name })),
    ),
  rateLimited: (what: string, seconds: number) =>
    new AppError('rate_limited', `${what}; try again in ${plural(seconds, 'second')}.`, undefined, seconds),
  premiumRequired: () =>
    new AppError('premium_required', 'Uploading images needs premium, which the administrator of this server grants. Images by external URL need none.'),

  imageIdNotIssued: () => new AppError('image_id_not_issued', 'This imageId was not issued to you for this campaign.'),
  uploadExpired: () => new AppError('upload_expired', 'The upload URL of this imageId has expired; request a new one and upload again.'),
  uploadNotCompleted: () =>
    new AppError('upload_not_completed', 'No file has been uploaded for this imageId yet; upload it to the uploadURL first.'),
  uploadRejected: (reason: string) =>
    new AppError('upload_rejected', `The uploaded file was refused and removed: ${reason} Upload an accepted image and confirm again.`),
  uploadVerificationFailed: () =>
    new AppError('upload_verification_failed', 'The image host could not verify the upload; nothing was saved. Try confirming again.'),
  uploadUrlNotFound: () =>
    new AppError('upload_url_not_found', 'This upload URL is unknown or has expired; ask for a new one with upload-url.'),
  uploadAlreadyReceived: () =>
    new AppError('upload_already_received', 'An image was already uploaded to this URL; each upload URL takes one file.'),
  imageTooLarge: (maxBytes: number) => new AppError('image_too_large', `The image is larger than the ${maxBytes} bytes this service accepts.`),
  unsupportedImageType: (reason: string) =>
    new AppError(
      'unsupported_image_type',
      `${reason} Send a PNG, JPEG, GIF, WebP or AVIF image: the format is read from the content, not the name or the declared type.`,
    ),
  imageNotFound: () => new AppError('image_not_found', 'There is no image at this address.'),

  roleForbidden: (what: string) => new AppError('role_forbidden', `Your role in this campaign does not allow this: ${what}`),
  notAMember: (userId: string, field: string) =>
    new AppError('invalid_reference', `User "${userId}" is not a member of this campaign.`, [{ path: field, message: 'must be the id of a member of this campaign' }]),
  memberNotFound: (userId: string) => new AppError('member_not_found', `User "${userId}" is not a member of this campaign.`),
  invitationNotFound: (id: number | string) => new AppError('invitation_not_found', `This campaign has no pending invitation ${id}.`),
  revisionNotFound: (id: number | string) => new AppError('revision_not_found', `This record has no revision ${id}.`),
  invitationUnavailable: () =>
    new AppError('invitation_unavailable', 'This invitation cannot be used: it has expired, been used up or been revoked. Ask for a new one.'),
  cursorExpired: (days: number) =>
    new AppError(
      'cursor_expired',
      `This cursor is older than the deletions this service keeps (${days} days): start again without \`since\` to read the whole campaign.`,
    ),
  ownerMustTransfer: (what: string) =>
    new AppError('owner_must_transfer', `The owner ${what}; transfer the campaign to another member first.`),
};
