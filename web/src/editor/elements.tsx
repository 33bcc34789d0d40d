// How each element and mark of the vocabulary looks while editing.
import { createContext, useContext, type ReactElement, type ReactNode } from 'react';
import { Node } from 'slate';
import { ReactEditor, useSelected, useSlateStatic, type RenderElementProps, type RenderLeafProps } from 'slate-react';
import { safeImageUrl, safeLinkUrl } from '../../../src/render/urls.js';
import { CALLOUT_TITLE_MAX_LENGTH, isSecretNode, mentionLabel, mentionTarget, type MentionTarget } from '../../../src/vocabulary/index.js';
import { useAssetImage, type AssetImage } from './api';
export { AwaitImageSizes } from './api';
import { setCalloutTitle, toggleTaskChecked } from './commands';

/**
 * The current name of a mention's target, as the editor knows it (the campaign's things and arcs,
 * and what the picker just inserted): `undefined` while not known yet, `null` when there is no such
 * record (deleted, or hidden from the caller). Mentions store no name (CONTRACT "Secrets that hold").
 */
export type MentionNames = (target: MentionTarget) => string | null | undefined;
export const MentionNamesContext = createContext<MentionNames>(() => undefined);
/** The campaign the edited text belongs to (its uploaded images' sizes are read from it). */
export const EditorCampaignContext = createContext<string | undefined>(undefined);

/** The "GM only" band inside an element that cannot be wrapped (a list item, a table row or cell). */
function SecretBadge() {
  return (
    <span className="secret-badge" contentEditable={false}>
      GM only
    </span>
  );
}

export function RenderElement({ attributes, children, element }: RenderElementProps) {
  // Secret at any depth (src/vocabulary): the band shows on every element marked secret.
  const secret = isSecretNode(element);
  const inner = (content: ReactNode): ReactNode =>
    secret ? (
      <>
        <SecretBadge />
        {content}
      </>
    ) : (
      content
    );
  const secretClass = secret ? 'secret-block' : undefined;
  const wrap = (node: ReactElement): ReactElement =>
    secret ? (
      <div className="secret-block" data-secret="true">
        <span className="secret-badge" contentEditable={false}>
          GM only
        </span>
        {node}
      </div>
    ) : (
      node
    );
  switch (element.type) {
    case 'heading-one':
      return wrap(<h1 {...attributes}>{children}</h1>);
    case 'heading-two':
      return wrap(<h2 {...attributes}>{children}</h2>);
    case 'heading-three':
      return wrap(<h3 {...attributes}>{children}</h3>);
    case 'heading-four':
      return wrap(<h4 {...attributes}>{children}</h4>);
    case 'heading-five':
      return wrap(<h5 {...attributes}>{children}</h5>);
    case 'heading-six':
      return wrap(<h6 {...attributes}>{children}</h6>);
    case 'block-quote':
      return wrap(<blockquote {...attributes}>{children}</blockquote>);
    case 'bulleted-list':
      return wrap(<ul {...attributes}>{children}</ul>);
    case 'numbered-list':
      return wrap(<ol {...attributes}>{children}</ol>);
    case 'list-item':
      if (typeof element.checked === 'boolean') return <TaskItem attributes={attributes} element={element} secret={secret}>{children}</TaskItem>;
      return (
        <li {...attributes} className={secretClass} data-secret={secret || undefined}>
          {inner(children as ReactNode)}
        </li>
      );
    case 'callout':
      return wrap(<CalloutElement attributes={attributes} element={element}>{children}</CalloutElement>);
    case 'code-block':
      return wrap(
        <pre {...attributes}>
          <code>{children}</code>
        </pre>,
      );
    case 'divider':
      return wrap(
        <div {...attributes}>
          <hr contentEditable={false} />
          {children}
        </div>,
      );
    case 'image':
      return wrap(<ImageElement attributes={attributes} element={element}>{children}</ImageElement>);
    case 'table':
      return wrap(
        <table {...attributes}>
          <tbody>{children}</tbody>
        </table>,
      );
    case 'table-row':
      return (
        <tr {...attributes} className={secretClass} data-secret={secret || undefined}>
          {children}
        </tr>
      );
    case 'table-cell':
      return (
        <td {...attributes} className={secretClass} data-secret={secret || undefined}>
          {inner(children as ReactNode)}
        </td>
      );
    case 'link':
      return (
        <a {...attributes} className={secretClass} data-secret={secret || undefined} href={safeLinkUrl(element.url)} onClick={(e) => e.preventDefault()}>
          {inner(children as ReactNode)}
        </a>
      );
    case 'mention':
      return <MentionElement attributes={attributes} element={element}>{children}</MentionElement>;
    case 'paragraph':
      return wrap(<p {...attributes}>{children}</p>);
    default:
      // A client's own element: kept as it is, shown as its text.
      return wrap(<div {...attributes}>{children}</div>);
  }
}

/**
 * A callout: its kind as a label and its title in a small field of its own (plain text, not part
 * of the editable text), then its blocks.
 */
function CalloutElement({ attributes, children, element }: RenderElementProps) {
  const editor = useSlateStatic();
  const kind = typeof element.kind === 'string' && element.kind !== '' ? element.kind : 'note';
  return (
    <aside {...attributes} className="callout" data-type={kind}>
      <div className="callout-head" contentEditable={false}>
        <span className="callout-kind">{kind}</span>
        <input
          className="callout-title"
          aria-label={`Title of the ${kind} callout`}
          placeholder="Title (optional)"
          maxLength={CALLOUT_TITLE_MAX_LENGTH}
          value={typeof element.title === 'string' ? element.title : ''}
          onChange={(event) => setCalloutTitle(editor, ReactEditor.findPath(editor, element), event.target.value)}
        />
      </div>
      {children}
    </aside>
  );
}

/** A task: a checkbox (keyboard reachable, named after the task) that toggles `checked`. */
function TaskItem({ attributes, children, element, secret }: RenderElementProps & { secret: boolean }) {
  const editor = useSlateStatic();
  const done = element.checked === true;
  const classes = ['task', done && 'done', secret && 'secret-block'].filter(Boolean).join(' ');
  return (
    <li {...attributes} className={classes} data-secret={secret || undefined}>
      <span className="task-check" contentEditable={false}>
        <input type="checkbox" checked={done} aria-label={`Done: ${Node.string(element) || 'task'}`} onChange={() => toggleTaskChecked(editor, ReactEditor.findPath(editor, element))} />
      </span>
      {secret && <SecretBadge />}
      {children}
    </li>
  );
}

// As rendered HTML has it (src/render/html.ts): the variants as srcset, the original last when it is
// wider, `sizes` the width it is shown at; the first image of the text is asked for first.
const COLUMN_PX = 832;
function srcSetOf(image: AssetImage | undefined, url: string): { srcSet?: string; sizes?: string } {
  const last = image?.variants[image.variants.length - 1];
  if (!image || !last) return {};
  const candidates = image.variants.map((v) => `${v.url} ${v.width}w`);
  if (image.width > last.width) candidates.push(`${url} ${image.width}w`);
  return { srcSet: candidates.join(', '), sizes: `min(100vw, ${Math.min(image.width, COLUMN_PX)}px)` };
}

function firstImage(nodes: readonly Node[]): Node | undefined {
  for (const node of nodes) {
    if ((node as { type?: unknown }).type === 'image') return node;
    const children = (node as { children?: unknown }).children;
    const found = Array.isArray(children) ? firstImage(children as Node[]) : undefined;
    if (found) return found;
  }
  return undefined;
}

function ImageElement({ attributes, children, element }: RenderElementProps) {
  const selected = useSelected();
  const url = safeImageUrl(element.url);
  // An uploaded image's size reserves its box (no layout shift); one by address has no known size.
  const image = useAssetImage(useContext(EditorCampaignContext), element.assetId);
  const first = firstImage(useSlateStatic().children) === element;
  return (
    <div {...attributes}>
      <figure contentEditable={false} className={selected ? 'selected' : undefined}>
        {url ? (
          <img {...srcSetOf(image, url)} src={url} alt={element.alt ?? ''} width={image?.width} height={image?.height} {...(first ? { fetchPriority: 'high' as const } : { loading: 'lazy' as const })} />
        ) : (
          <span className="muted">(an image with an address that cannot be shown)</span>
        )}
        {element.caption && <figcaption>{element.caption}</figcaption>}
      </figure>
      {children}
    </div>
  );
}

function MentionElement({ attributes, children, element }: RenderElementProps) {
  const selected = useSelected();
  const names = useContext(MentionNamesContext);
  const label = mentionLabel(element);
  const target = mentionTarget(element);
  // A label of its own (a vault's [[Target|label]]) shows as it is; otherwise the current name.
  const name = label !== '' ? label : target ? names(target) : null;
  const classes = ['mention', selected && 'selected', name === null && 'missing', isSecretNode(element) && 'secret-block'].filter(Boolean).join(' ');
  return (
    <span {...attributes} contentEditable={false} className={classes} data-type={element.targetType} data-id={element.targetId} title={name === null ? 'No such thing or arc' : 'Ctrl+click (Cmd+click) opens it'}>
      @{name === undefined ? '…' : name === null ? '(missing)' : name}
      {children}
    </span>
  );
}

export function RenderLeaf({ attributes, children, leaf }: RenderLeafProps) {
  let out: ReactElement = <>{children}</>;
  if (leaf.code) out = <code>{out}</code>;
  if (leaf.highlight) out = <mark>{out}</mark>;
  if (leaf.strikethrough) out = <s>{out}</s>;
  if (leaf.underline) out = <u>{out}</u>;
  if (leaf.italic) out = <em>{out}</em>;
  if (leaf.bold) out = <strong>{out}</strong>;
  return <span {...attributes}>{out}</span>;
}
