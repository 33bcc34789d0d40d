// The toolbar's link (and Ctrl+K in the text): a dialog for the address, and the link's text when
// there is no selection to become it. Only addresses the server renders as links (CONTRACT "Rich
// content": http, https, mailto, a path of this site, checked by the server's own function); a bare
// domain is taken as https.
import * as Dialog from '@radix-ui/react-dialog';
import { useState, type Ref } from 'react';
import { Range, Transforms } from 'slate';
import { ReactEditor, useSlate } from 'slate-react';
import { safeLinkUrl } from '../../../src/render/urls.js';
import { formText } from '../ui/field';
import { FormDialog } from '../ui/form-dialog';
import { activeLink, removeLink, setLink } from './commands';

/**
 * The address as the server renders it as a link (src/render/urls.ts `safeLinkUrl`, the same
 * function: http, https, mailto, a path of this site; no spaces, backslashes or control characters),
 * a bare domain made https. Throws, with what to type, for anything the server would show as text.
 */
export function safeUrl(typed: string): string {
  const url = typed.trim();
  const bareDomain = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+([/?#:].*)?$/u.test(url);
  const safe = safeLinkUrl(bareDomain ? `https://${url}` : url);
  if (safe !== undefined) return safe;
  if (/[\s\\]/.test(url)) throw new Error('An address cannot hold spaces or backslashes: write a space as %20.');
  // `//host/…` is another site's address with its scheme left out, not a page of this one.
  if (url.startsWith('//')) throw new Error('An address starting with // is another site’s: write https: in front of it (https://…).');
  throw new Error('Use an address starting with https://, http://, mailto: or / (a page of this site).');
}

export function LinkButton({ ref }: { ref: Ref<HTMLButtonElement> }) {
  const editor = useSlate();
  const link = activeLink(editor);
  // The dialog takes focus from the editor: its selection is kept for the command, and the editor
  // gets focus back when the dialog closes.
  const [selection, setSelection] = useState(editor.selection);
  const askText = !link && (!selection || Range.isCollapsed(selection));
  return (
    <FormDialog
      trigger={
        <button ref={ref} type="button" className={link ? 'tool active' : 'tool'} aria-label="Link (Ctrl+K)" title="Link (Ctrl+K)" aria-keyshortcuts="Control+K Meta+K" onMouseDown={(e) => e.preventDefault()}>
          Link
        </button>
      }
      title={link ? 'Edit link' : 'Insert link'}
      submitLabel="Apply"
      onOpenChange={(open) => open && setSelection(editor.selection)}
      onClosed={() => ReactEditor.focus(editor)}
      onSubmit={(form) => {
        const typed = formText(form, 'url').trim();
        const url = typed === '' ? '' : safeUrl(typed);
        if (selection) Transforms.select(editor, selection);
        if (url === '') removeLink(editor);
        else setLink(editor, url, askText ? formText(form, 'text').trim() : undefined);
      }}
      extraActions={
        link && (
          <Dialog.Close asChild>
            <button type="button" onClick={() => removeLink(editor)}>
              Remove link
            </button>
          </Dialog.Close>
        )
      }
    >
      {() => (
        <>
          <div className="field">
            <label htmlFor="link-url">Address (https://…, mailto:… or /path)</label>
            <input id="link-url" name="url" type="text" inputMode="url" autoComplete="url" defaultValue={typeof link?.[0].url === 'string' ? link[0].url : ''} autoFocus />
          </div>
          {askText && (
            <div className="field">
              <label htmlFor="link-text">Text (optional: the address otherwise)</label>
              <input id="link-text" name="text" type="text" />
            </div>
          )}
        </>
      )}
    </FormDialog>
  );
}
