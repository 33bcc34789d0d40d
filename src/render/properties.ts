// A record's properties rendered (CONTRACT "Records: properties, tags, aliases": "Rendered answers
// gain `properties` (HTML: a `<dl>`; Markdown: a list)"). The caller gives the properties the view
// may read (access/view.ts propertiesFor: no GM-only property and no link to a hidden record for
// players) and a context holding their link targets (db/repositories/mentions.ts loads it).
//
// - HTML: `<dl class="properties">`, the key as `<dt>`, the value as `<dd>`: text as text, a number
//   as written, a boolean as yes/no, null as nothing, a link as a mention (`<a class="mention">`
//   with the target's current name), a list as a `<ul>`. A GM-only property (shown to game masters
//   only) has `class="secret"` on its `<dt>` and `<dd>`.
// - Markdown: a list of `- **key**: value`, a list's values separated by commas, a link as the
//   mentions' link `[current name](href)`; a GM-only property's item in `<span class="secret">`.
// A link whose target the context does not hold (deleted) shows nothing.
import type { Element, ElementContent, Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { isPropertyLink, type Property, type PropertyScalar } from '../domain/properties.js';
import { el, inline } from './html.js';
import { toMarkdownString } from './markdown.js';
import { mentionHref, type RenderContext } from './model.js';
import { NO_MARKS, type Inline } from './tree.js';

/** The targets a rendering of these properties must look up. */
export function propertyReferences(properties: readonly Property[], into: { thingIds: Set<number>; arcIds: Set<number> }): void {
  for (const property of properties) {
    for (const value of Array.isArray(property.value) ? property.value : [property.value]) {
      if (isPropertyLink(value)) (value.targetType === 'thing' ? into.thingIds : into.arcIds).add(value.targetId);
    }
  }
}

/** One value as phrasing; nothing for null and for a link to a record the context does not hold. */
function scalar(value: PropertyScalar, ctx: RenderContext): Inline[] {
  if (value === null) return [];
  if (isPropertyLink(value)) {
    const target = (value.targetType === 'thing' ? ctx.things : ctx.arcs).byId.get(value.targetId);
    return target ? [{ kind: 'mention', target: value.targetType, id: target.id, name: target.name, href: mentionHref(ctx, value.targetType, target), marks: NO_MARKS }] : [];
  }
  const text = typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value);
  return text === '' ? [] : [{ kind: 'text', text, marks: NO_MARKS }];
}

function htmlValue(property: Property, ctx: RenderContext): ElementContent[] {
  if (!Array.isArray(property.value)) return scalar(property.value, ctx).flatMap(inline);
  const items = property.value.map((value) => scalar(value, ctx)).filter((content) => content.length > 0);
  return items.length === 0 ? [] : [el('ul', {}, items.map((content) => el('li', {}, content.flatMap(inline))))];
}

function markdownValue(property: Property, ctx: RenderContext): Inline[] {
  const values = Array.isArray(property.value) ? property.value : [property.value];
  const out: Inline[] = [];
  for (const content of values.map((value) => scalar(value, ctx)).filter((c) => c.length > 0)) {
    if (out.length > 0) out.push({ kind: 'text', text: ', ', marks: NO_MARKS });
    out.push(...content);
  }
  return out;
}

/** The properties as HTML (`<dl>`) or Markdown (a list); the empty string when there are none. */
export function renderProperties(properties: readonly Property[], format: 'html' | 'markdown', ctx: RenderContext): string {
  if (properties.length === 0) return '';
  if (format === 'html') {
    const children: Element[] = properties.flatMap((property) => {
      const secret = property.gmOnly ? { className: ['secret'] } : {};
      return [el('dt', secret, [{ type: 'text', value: property.key }]), el('dd', secret, htmlValue(property, ctx))];
    });
    const root: Root = { type: 'root', children: [el('dl', { className: ['properties'] }, children)] };
    return toHtml(root, { characterReferences: { useNamedReferences: false } });
  }
  const items = properties.map((property) => {
    const value = markdownValue(property, ctx);
    const line: Inline[] = [{ kind: 'text', text: property.key, marks: { ...NO_MARKS, bold: true } }, { kind: 'text', text: value.length > 0 ? ': ' : ':', marks: NO_MARKS }, ...value];
    return { checked: undefined, content: [{ kind: 'paragraph' as const, content: property.gmOnly ? [{ kind: 'secret-span' as const, children: line }] : line }] };
  });
  return toMarkdownString([{ kind: 'list', ordered: false, items }]);
}
