// How each element and mark of the vocabulary looks while editing.
import { createContext, useContext, type ReactElement, type ReactNode } from 'react';
import { useSelected, type RenderElementProps, type RenderLeafProps } from 'slate-react';
import { isSecretNode, mentionLabel, mentionTarget, type MentionTarget } from '../../../src/vocabulary/index.js';

/**
 * The current name of a mention's target, as the editor knows it (the campaign's things and arcs,
 * and what the picker just inserted): `undefined` while not known yet, `null` when there is no such
 * record (deleted, or hidden from the caller). Mentions store no name (CONTRACT "Secrets that hold").
 */
export type MentionNames = (target: MentionTarget) => string | null | undefined;
export const MentionNamesContext = createContext<MentionNames>(() => undefined);

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
      return (
        <li {...attributes} className={secretClass} data-secret={secret || undefined}>
          {inner(children as ReactNode)}
        </li>
      );
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
        <a {...attributes} className={secretClass} data-secret={secret || undefined} href={typeof element.url === 'string' ? element.url : undefined} onClick={(e) => e.preventDefault()}>
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

function ImageElement({ attributes, children, element }: RenderElementProps) {
  const selected = useSelected();
  const url = typeof element.url === 'string' && /^(https?:\/\/|\/(?!\/))/i.test(element.url) ? element.url : undefined;
  return (
    <div {...attributes}>
      <figure contentEditable={false} className={selected ? 'selected' : undefined}>
        {url ? <img src={url} alt={element.alt ?? ''} /> : <span className="muted">(an image with an address that cannot be shown)</span>}
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
    <span {...attributes} contentEditable={false} className={classes} data-type={element.targetType} data-id={element.targetId} title={name === null ? 'No such thing or arc' : undefined}>
      @{name === undefined ? '…' : name === null ? '(missing)' : name}
      {children}
    </span>
  );
}

export function RenderLeaf({ attributes, children, leaf }: RenderLeafProps) {
  let out: ReactElement = <>{children}</>;
  if (leaf.code) out = <code>{out}</code>;
  if (leaf.strikethrough) out = <s>{out}</s>;
  if (leaf.underline) out = <u>{out}</u>;
  if (leaf.italic) out = <em>{out}</em>;
  if (leaf.bold) out = <strong>{out}</strong>;
  return <span {...attributes}>{out}</span>;
}
