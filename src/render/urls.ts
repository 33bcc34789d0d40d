// Which URLs rendered content may carry (CONTRACT "Rich content"): links take http:, https:, mailto:
// and paths starting with a single `/`; images http:, https: and such paths. Nothing else, whatever
// the case, white space or control characters a hostile value hides a scheme behind.

const PATH = /^\/(?![/\\])[^\s\\]*$/;

/** White space or a control character anywhere (a browser drops or trims them, unmasking a scheme). */
function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return /\s/.test(value);
}

const isPath = (value: string) => PATH.test(value) && !hasSpaceOrControl(value);

function absolute(value: string, schemes: readonly string[]): string | undefined {
  // The value must already start with the scheme: a browser strips leading spaces and removes tabs
  // and line breaks inside a URL, so `\tjava\nscript:` must not get as far as the URL parser.
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value) || hasSpaceOrControl(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return schemes.includes(url.protocol) ? url.href : undefined;
}

/** The URL to put in a link's href, or undefined when the link must render as its text only. */
export function safeLinkUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 8192) return undefined;
  if (isPath(value)) return value;
  return absolute(value, ['http:', 'https:', 'mailto:']);
}

/** The URL to put in an image's src, or undefined when the image renders nothing. */
export function safeImageUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 8192) return undefined;
  if (isPath(value)) return value;
  return absolute(value, ['http:', 'https:']);
}
