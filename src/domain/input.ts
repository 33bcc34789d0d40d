import { errors, type FieldIssue } from './errors.js';
import { emptyRichText, validateRichText, type RichText } from './rich-text.js';
import { isValidSlug } from './slugs.js';

export const NAME_MAX_LENGTH = 255;

/**
 * Collects field problems of one request body so the caller gets all of them at once,
 * then throws a single validation error.
 */
export class InputChecker {
  readonly issues: FieldIssue[] = [];

  /** A name: trimmed, 1 to 255 characters (code points) after trimming. */
  name(value: unknown, path: string): string {
    if (typeof value !== 'string') {
      this.issues.push({ path, message: 'must be a string' });
      return '';
    }
    const trimmed = value.trim();
    const length = [...trimmed].length;
    if (length === 0) this.issues.push({ path, message: 'must not be blank' });
    else if (length > NAME_MAX_LENGTH) this.issues.push({ path, message: `must be at most ${NAME_MAX_LENGTH} characters` });
    else if (trimmed.includes('\u0000')) this.issues.push({ path, message: 'must not contain NUL characters' });
    return trimmed;
  }

  slug(value: unknown, path: string): string {
    if (typeof value !== 'string' || !isValidSlug(value)) {
      this.issues.push({
        path,
        message: 'must be 1 to 100 lowercase letters, digits and single hyphens, not starting or ending with a hyphen',
      });
      return '';
    }
    return value;
  }

  /**
   * The value, once valid; otherwise the empty paragraph (done() throws before it is used). A value
   * that failed its checks is never handed on: serialising one nested 100,000 levels deep would
   * overflow the stack (a 500 where the answer is 400).
   */
  richText(value: unknown, path: string): RichText {
    const found = validateRichText(value, path);
    this.issues.push(...found);
    return found.length === 0 ? (value as RichText) : emptyRichText();
  }

  /** A positive record id (JSON integer). */
  id(value: unknown, path: string): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      this.issues.push({ path, message: 'must be a positive integer id' });
      return 0;
    }
    return value;
  }

  done(): void {
    if (this.issues.length > 0) throw errors.validationFailed(this.issues);
  }
}
