import { lazy, Suspense } from 'react';
import type { RichTextEditorProps } from './editor';

// The editor (Slate and its plugins) is loaded the first time one is opened, not with the app:
// reading pages, the shell and sign-in do without it.
const Editor = lazy(() => import('./editor').then((module) => ({ default: module.RichTextEditor })));

export function LazyRichTextEditor(props: RichTextEditorProps) {
  return (
    <Suspense fallback={<p className="loading">Loading the editor…</p>}>
      <Editor {...props} />
    </Suspense>
  );
}
