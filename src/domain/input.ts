import { errors, type FieldIssue } from './errors.js';
import { checkRichText, emptyRichText, serializeRichText, validateRichText, type RichText } from './rich-text.js';
import { isValidSlug } from './slugs.js';
import { checkAliases, checkFields, checkProperties, checkTags, type Property, type TypeField } from './properties.js';

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

  /** A rich-text value as it is stored: `serializeRichText(this.richText(value, path))`, serialized once. */
  richTextJson(value: unknown, path: string): string {
    const { issues, json } = checkRichText(value, path);
    this.issues.push(...issues);
    return json ?? serializeRichText(emptyRichText());
  }

  /** A positive record id (JSON integer). */
  id(value: unknown, path: string): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      this.issues.push({ path, message: 'must be a positive integer id' });
      return 0;
    }
    return value;
  }

  /** Properties `[{key, value, gmOnly?}]` (domain/properties.ts). */
  properties(value: unknown, path: string): Property[] {
    return checkProperties(value, path, this.issues);
  }

  tags(value: unknown, path: string): string[] {
    return checkTags(value, path, this.issues);
  }

  aliases(value: unknown, path: string): string[] {
    return checkAliases(value, path, this.issues);
  }

  /** A thing type's fields `[{key, kind}]`. */
  fields(value: unknown, path: string): TypeField[] {
    return checkFields(value, path, this.issues);
  }

  /** The properties, tags and aliases a body gives (each absent when not given). */
  structure(input: { properties?: unknown; tags?: unknown; aliases?: unknown }, path: string) {
    const out: { properties?: Property[]; tags?: string[]; aliases?: string[] } = {};
    if (input.properties !== undefined) out.properties = this.properties(input.properties, `${path}/properties`);
    if (input.tags !== undefined) out.tags = this.tags(input.tags, `${path}/tags`);
    if (input.aliases !== undefined) out.aliases = this.aliases(input.aliases, `${path}/aliases`);
    return out;
  }

  done(): void {
    if (this.issues.length > 0) throw errors.validationFailed(this.issues);
  }
}
