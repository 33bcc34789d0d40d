// The renderer: rich text to HTML or Markdown (CONTRACT "Rich content"). Pure: the caller loads
// what the content refers to (references.ts says what) into a RenderContext.

import type { RichText } from '../domain/rich-text.js';
import { toHtmlString } from './html.js';
import { toMarkdownString } from './markdown.js';
import { Renderer, type RenderContext } from './model.js';

export type RenderFormat = 'html' | 'markdown';
export const RENDER_FORMATS: readonly RenderFormat[] = ['html', 'markdown'];

export type { AssetTarget, MentionTarget, RenderContext, RenderLinks } from './model.js';
export { collectReferences, emptyReferences, mentionsOf, rewriteMentionSlugs, storedMayMention, type Mention, type References } from './references.js';

export function renderRichText(value: RichText, format: RenderFormat, context: RenderContext): string {
  const blocks = new Renderer(context).document(value);
  return format === 'html' ? toHtmlString(blocks) : toMarkdownString(blocks);
}
export { propertyReferences, renderProperties } from './properties.js';
