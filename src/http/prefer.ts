// The Prefer request header (RFC 7240): a comma-separated list of preferences, each a token with an
// optional `=value` and `;parameters`; names are case-insensitive, values may be quoted strings
// (holding commas). Several Prefer headers are one list (Node joins them with ", ").

/** The names of the preferences in a Prefer header, lowercased, in order. */
export function preferenceNames(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join(',') : header;
  const names: string[] = [];
  let current = '';
  let quoted = false;
  let escaped = false;
  const flush = () => {
    const name = /^[\s]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)/.exec(current)?.[1];
    if (name !== undefined) names.push(name.toLowerCase());
    current = '';
  };
  for (const char of text) {
    if (quoted) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') quoted = false;
      current += char;
    } else if (char === '"') {
      quoted = true;
      current += char;
    } else if (char === ',') {
      flush();
    } else {
      current += char;
    }
  }
  flush();
  return names;
}

/** Whether the header asks for an asynchronous answer (`respond-async`). */
export function prefersAsync(header: string | string[] | undefined): boolean {
  return preferenceNames(header).includes('respond-async');
}
