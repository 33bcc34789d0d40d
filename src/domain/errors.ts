// Errors that domain rules and repositories raise; the HTTP layer maps each code to a status.
export type DomainErrorCode =
  | 'validation_failed'
  | 'invalid_reference'
  | 'arc_cycle'
  | 'id_mismatch'
  | 'campaign_not_found'
  | 'thing_not_found'
  | 'thing_type_not_found'
  | 'arc_not_found'
  | 'link_not_found'
  | 'token_not_found'
  | 'slug_taken'
  | 'name_taken'
  | 'email_taken'
  | 'precondition_failed'
  | 'invalid_credentials'
  | 'premium_required'
  | 'image_id_not_issued'
  | 'upload_expired'
  | 'upload_not_completed'
  | 'upload_rejected'
  | 'asset_not_found'
  | 'upload_url_not_found'
  | 'image_not_found'
  | 'upload_already_received'
  | 'image_too_large'
  | 'unsupported_image_type'
  | 'upload_verification_failed';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
  }
}
