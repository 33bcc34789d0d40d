// A rich-text diff as a reader sees it: added blocks and words inside <ins>, removed ones inside
// <del>, each change also named in words ("Added", "Removed", "Changed"; hidden words inside a
// paragraph) so that neither colour nor a screen reader's silence about <ins>/<del> hides it. Runs of
// unchanged blocks are folded to a line. Read-only: nothing here is an editor.
import { Fragment, type ReactNode } from 'react';
import type { BlockChange, Token, WordPart } from './block-diff';
import { isTextBlock, tokenize, type Block } from './block-diff';

/** The current name of a mention's target, when known. */
export type MentionName = (targetType: string, targetId: number) => string | undefined;

/** Unchanged blocks shown around a change; the others are folded. */
const CONTEXT = 1;

/** Inline (one column, changes in place) or side by side (the older version left, the newer right). */
export type DiffLayout = 'inline' | 'side-by-side';

export function BlockDiff({
  changes,
  mentionName,
  onCopyBack,
  copyLabel,
  layout = 'inline',
  sides = ['Before', 'After'],
}: {
  changes: readonly BlockChange[];
  mentionName: MentionName;
  onCopyBack?: ((at: number) => void) | undefined;
  copyLabel: string;
  layout?: DiffLayout;
  /** The two columns' names, side by side (older, newer). */
  sides?: readonly [string, string];
}) {
  if (changes.length === 0) return <p className="muted">Empty on both sides.</p>;
  const near = (i: number) => changes.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((c) => c.kind !== 'same');
  const out: ReactNode[] = [];
  let folded = 0;
  const fold = (key: string) => {
    if (folded > 0) out.push(<p key={key} className="diff-unchanged">{folded === 1 ? '1 unchanged block' : `${folded} unchanged blocks`}</p>);
    folded = 0;
  };
  changes.forEach((change, i) => {
    if (change.kind === 'same' && !near(i)) {
      folded += 1;
      return;
    }
    fold(`fold-${i}`);
    const props = { change, mentionName, onCopyBack: onCopyBack ? () => onCopyBack(i) : undefined, copyLabel };
    out.push(layout === 'inline' ? <ChangeView key={i} {...props} /> : <ChangeRow key={i} {...props} />);
  });
  fold('fold-end');
  if (layout === 'inline') return <div className="diff">{out}</div>;
  return (
    <div className="diff side-by-side">
      <div className="diff-row diff-sides" aria-hidden="true">
        <span>{sides[0]}</span>
        <span>{sides[1]}</span>
      </div>
      {out}
    </div>
  );
}

function CopyBack({ onClick, label }: { onClick: () => void; label: string }) {
  return (
    <button type="button" className="copy-back" onClick={onClick}>
      {label}
    </button>
  );
}

/** One change as a row of two cells: the older side left, the newer right (an empty cell where a side has nothing). */
function ChangeRow({ change, mentionName, onCopyBack, copyLabel }: { change: BlockChange; mentionName: MentionName; onCopyBack: (() => void) | undefined; copyLabel: string }) {
  const copy = onCopyBack && <CopyBack onClick={onCopyBack} label={copyLabel} />;
  const empty = <div className="diff-cell empty" />;
  switch (change.kind) {
    case 'same':
      return (
        <div className="diff-row">
          <div className="diff-cell same">{renderBlock(change.block, mentionName)}</div>
          <div className="diff-cell same" aria-hidden="true">
            {renderBlock(change.block, mentionName)}
          </div>
        </div>
      );
    case 'inserted':
      return (
        <div className="diff-row">
          {empty}
          <div className="diff-cell diff-block inserted">
            <span className="diff-label">Added</span>
            <ins>{renderBlock(change.block, mentionName)}</ins>
          </div>
        </div>
      );
    case 'removed':
      return (
        <div className="diff-row">
          <div className="diff-cell diff-block removed">
            <span className="diff-label">Removed</span>
            <del>{renderBlock(change.block, mentionName)}</del>
            {copy}
          </div>
          {empty}
        </div>
      );
    case 'changed': {
      const words = change.words;
      return (
        <div className="diff-row">
          <div className="diff-cell diff-block changed">
            <span className="diff-label">Changed, before</span>
            {words ? wrapBlock(change.before, <Words parts={words.filter((part) => part.kind !== 'inserted')} mentionName={mentionName} />) : <del>{renderBlock(change.before, mentionName)}</del>}
            {copy}
          </div>
          <div className="diff-cell diff-block changed">
            <span className="diff-label">Changed, after</span>
            {words ? wrapBlock(change.after, <Words parts={words.filter((part) => part.kind !== 'removed')} mentionName={mentionName} />) : <ins>{renderBlock(change.after, mentionName)}</ins>}
          </div>
        </div>
      );
    }
  }
}

function ChangeView({ change, mentionName, onCopyBack, copyLabel }: { change: BlockChange; mentionName: MentionName; onCopyBack: (() => void) | undefined; copyLabel: string }) {
  const copy = onCopyBack && <CopyBack onClick={onCopyBack} label={copyLabel} />;
  switch (change.kind) {
    case 'same':
      return <div className="diff-block same">{renderBlock(change.block, mentionName)}</div>;
    case 'inserted':
      return (
        <div className="diff-block inserted">
          <span className="diff-label">Added</span>
          <ins>{renderBlock(change.block, mentionName)}</ins>
        </div>
      );
    case 'removed':
      return (
        <div className="diff-block removed">
          <span className="diff-label">Removed</span>
          <del>{renderBlock(change.block, mentionName)}</del>
          {copy}
        </div>
      );
    case 'changed':
      return (
        <div className="diff-block changed">
          <span className="diff-label">Changed</span>
          {change.words ? (
            wrapBlock(change.after, <Words parts={change.words} mentionName={mentionName} />)
          ) : (
            <>
              <del>
                <span className="visually-hidden">Before: </span>
                {renderBlock(change.before, mentionName)}
              </del>
              <ins>
                <span className="visually-hidden">After: </span>
                {renderBlock(change.after, mentionName)}
              </ins>
            </>
          )}
          {copy}
        </div>
      );
  }
}

function Words({ parts, mentionName }: { parts: WordPart[]; mentionName: MentionName }) {
  return (
    <>
      {parts.map((part, i) => {
        const tokens = part.tokens.map((token, j) => <TokenView key={j} token={token} mentionName={mentionName} />);
        if (part.kind === 'same') return <Fragment key={i}>{tokens}</Fragment>;
        return part.kind === 'inserted' ? (
          <ins key={i}>
            <span className="visually-hidden">[added: </span>
            {tokens}
            <span className="visually-hidden">]</span>
          </ins>
        ) : (
          <del key={i}>
            <span className="visually-hidden">[removed: </span>
            {tokens}
            <span className="visually-hidden">]</span>
          </del>
        );
      })}
    </>
  );
}

function TokenView({ token, mentionName }: { token: Token; mentionName: MentionName }) {
  if (token.inline?.type === 'mention') return <Mention element={token.inline} mentionName={mentionName} />;
  let out: ReactNode = withMarks(token.text, token.marks);
  if (token.inline?.type === 'link') out = <span className="diff-link">{out}</span>;
  return <>{out}</>;
}

function withMarks(text: string, marks: Record<string, unknown>): ReactNode {
  let out: ReactNode = text;
  if (marks.code) out = <code>{out}</code>;
  if (marks.strikethrough) out = <s>{out}</s>;
  if (marks.underline) out = <u>{out}</u>;
  if (marks.italic) out = <em>{out}</em>;
  if (marks.bold) out = <strong>{out}</strong>;
  if (marks.highlight) out = <mark>{out}</mark>;
  return out;
}

function Mention({ element, mentionName }: { element: Record<string, unknown>; mentionName: MentionName }) {
  const name = typeof element.targetType === 'string' && typeof element.targetId === 'number' ? mentionName(element.targetType, element.targetId) : undefined;
  return <span className={name === undefined ? 'mention missing' : 'mention'}>@{name ?? '(missing)'}</span>;
}

type Node = { type?: unknown; children?: unknown; text?: unknown; isSecret?: unknown; [key: string]: unknown };

/** A block's own element around the given content (a heading stays a heading). Headings are shown as styled paragraphs: the panel's outline is the page's. */
function wrapBlock(block: Block, content: ReactNode): ReactNode {
  const node = block as Node;
  const type = typeof node.type === 'string' ? node.type : 'paragraph';
  let out: ReactNode;
  if (type.startsWith('heading-')) out = <p className={`diff-heading ${type}`}>{content}</p>;
  else if (type === 'block-quote') out = <blockquote>{content}</blockquote>;
  else if (type === 'code-block') out = <pre><code>{content}</code></pre>;
  else if (type === 'list-item') out = <ul><li>{content}</li></ul>;
  else out = <p>{content}</p>;
  return node.isSecret === true ? (
    <div className="secret-block">
      <span className="secret-badge">GM only</span>
      {out}
    </div>
  ) : (
    out
  );
}

/** A whole block, read-only. */
export function renderBlock(block: Block, mentionName: MentionName): ReactNode {
  const node = block as Node;
  if (isTextBlock(block)) {
    const tokens = tokenize(block);
    if (tokens.length === 0) return wrapBlock(block, <span className="muted">(an empty line)</span>);
    return wrapBlock(block, tokens.map((token, i) => <TokenView key={i} token={token} mentionName={mentionName} />));
  }
  const children = Array.isArray(node.children) ? (node.children as Block[]) : [];
  const inner = children.map((child, i) => <Fragment key={i}>{renderBlock(child, mentionName)}</Fragment>);
  let out: ReactNode;
  switch (node.type) {
    case 'bulleted-list':
      out = <ul>{children.map((child, i) => <li key={i}>{renderInline(child, mentionName)}</li>)}</ul>;
      break;
    case 'numbered-list':
      out = <ol>{children.map((child, i) => <li key={i}>{renderInline(child, mentionName)}</li>)}</ol>;
      break;
    case 'table':
      out = (
        <table>
          <tbody>
            {children.map((row, i) => (
              <tr key={i}>
                {(((row as Node).children as Block[] | undefined) ?? []).map((cell, j) => (
                  <td key={j}>{renderInline(cell, mentionName)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
      break;
    case 'image':
      out = <p className="muted">[image{typeof node.alt === 'string' && node.alt ? `: ${node.alt}` : ''}]</p>;
      break;
    case 'divider':
      out = <hr />;
      break;
    default:
      out = <div>{inner}</div>;
  }
  return node.isSecret === true ? (
    <div className="secret-block">
      <span className="secret-badge">GM only</span>
      {out}
    </div>
  ) : (
    out
  );
}

/** A list item's or a cell's content: its text, or its blocks. */
function renderInline(node: Block, mentionName: MentionName): ReactNode {
  if (isTextBlock(node)) return tokenize(node).map((token, i) => <TokenView key={i} token={token} mentionName={mentionName} />);
  const children = ((node as Node).children as Block[] | undefined) ?? [];
  return children.map((child, i) => <Fragment key={i}>{renderBlock(child, mentionName)}</Fragment>);
}
