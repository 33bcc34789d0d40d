import { lazy, Suspense, type ReactNode } from 'react';
import type { RichTextEditorProps } from './editor';

// The editor (Slate and its plugins) is loaded the first time one is opened, not with the app:
// reading pages, the shell and sign-in do without it.
const Editor = lazy(() => import('./editor').then((module) => ({ default: module.RichTextEditor })));

/** `fallback`: what stands in the editor's place until it has arrived (a record page shows the rendered text). */
export function LazyRichTextEditor({ fallback, ...props }: RichTextEditorProps & { fallback?: ReactNode }) {
  return (
    <Suspense fallback={fallback ?? <p className="loading">Loading the editor…</p>}>
      <Editor {...props} />
    </Suspense>
  );
}
