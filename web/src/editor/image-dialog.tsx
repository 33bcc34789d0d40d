import * as Dialog from '@radix-ui/react-dialog';
import { useState, type FormEvent } from 'react';
import { Transforms } from 'slate';
import { ReactEditor, useSlate } from 'slate-react';
import { messageOf } from '../api/client';
import { formText } from '../ui/field';
import { insertImage } from './commands';
import { uploadImage } from './upload';

/** The toolbar's image dialog: an image by its address for everyone, an upload for premium users. */
export function ImageButton({ campaignSlug, canUpload }: { campaignSlug: string; canUpload: boolean }) {
  const editor = useSlate();
  const [open, setOpen] = useState(false);
  const [selection, setSelection] = useState(editor.selection);
  const [progress, setProgress] = useState<number>();
  const [error, setError] = useState<string>();
  const insert = (image: Parameters<typeof insertImage>[1]) => {
    setOpen(false);
    if (selection) Transforms.select(editor, selection);
    insertImage(editor, image);
    ReactEditor.focus(editor);
  };
  const byAddress = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const url = formText(form, 'url').trim();
    if (url !== '') insert({ url, alt: formText(form, 'alt'), caption: formText(form, 'caption') });
  };
  const upload = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const file = form.get('file');
    const label = formText(form, 'label').trim();
    if (!(file instanceof File) || file.size === 0) return setError('Choose an image file.');
    setError(undefined);
    setProgress(0);
    try {
      const asset = await uploadImage(campaignSlug, file, label, setProgress);
      // The asset's label is its alt text and its caption (the server renders it so).
      insert({ url: asset.url, assetId: asset.id, alt: asset.label, caption: asset.label });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setProgress(undefined);
    }
  };
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (next) setSelection(editor.selection);
        setError(undefined);
        setOpen(next);
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="tool" aria-label="Image" title="Image" onMouseDown={(e) => e.preventDefault()}>
          Image
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined} onCloseAutoFocus={(e) => e.preventDefault()}>
          <Dialog.Title>Insert an image</Dialog.Title>
          <form onSubmit={byAddress} aria-label="An image by its address">
            <h3>By address</h3>
            <div className="field">
              <label htmlFor="image-url">Image address (https://…)</label>
              <input id="image-url" name="url" type="url" required autoFocus />
            </div>
            <div className="field">
              <label htmlFor="image-alt">Alt text (what the image shows)</label>
              <input id="image-alt" name="alt" />
            </div>
            <div className="field">
              <label htmlFor="image-caption">Caption</label>
              <input id="image-caption" name="caption" />
            </div>
            <div className="actions">
              <button type="submit" className="primary">
                Insert by address
              </button>
            </div>
          </form>
          <form onSubmit={(e) => void upload(e)} aria-label="Upload an image">
            <h3>Upload</h3>
            {canUpload ? (
              <>
                <div className="field">
                  <label htmlFor="image-file">Image file (PNG, JPEG, GIF or WebP)</label>
                  <input id="image-file" name="file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" />
                </div>
                <div className="field">
                  <label htmlFor="image-label">Label (its alt text and caption)</label>
                  <input id="image-label" name="label" required />
                </div>
                {progress !== undefined && (
                  <progress value={progress} max={1} aria-label="Upload progress">
                    {Math.round(progress * 100)}%
                  </progress>
                )}
                {error && (
                  <p className="error" role="alert">
                    {error}
                  </p>
                )}
                <div className="actions">
                  <button type="submit" className="primary" disabled={progress !== undefined}>
                    Upload and insert
                  </button>
                </div>
              </>
            ) : (
              <p className="muted">Uploading images is for premium accounts. Ask the administrator of this server for premium; images by address work for everyone.</p>
            )}
          </form>
          <div className="actions">
            <Dialog.Close asChild>
              <button type="button">Cancel</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
