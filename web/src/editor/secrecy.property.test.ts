// A model-based property test of the editor (CONTRACT "Secrets that hold"): random documents with
// marker words in secret and non-secret blocks, random sequences of the editor's own commands
// (secrecy-model.ts), and after every command each secret marker is still inside a secret element
// by the shared definition (src/vocabulary). The figures are printed for the closing note.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { validateRichText } from '../../../src/domain/rich-text.js';
import { checkSecrecy, commandsArbitrary, documentArbitrary, modelEditor, runCommand } from './secrecy-model';

const figures = { sequences: 0, steps: 0, markerChecks: 0 };

afterAll(() => {
  console.info(`editor secrecy property: ${figures.sequences} sequences, ${figures.steps} commands, ${figures.markerChecks} marker checks`);
});

describe('the editor keeps secrets through every command', () => {
  it('leaves every secret word inside a secret element after any sequence of commands', () => {
    fc.assert(
      fc.property(documentArbitrary, commandsArbitrary, (document, commands) => {
        figures.sequences += 1;
        const editor = modelEditor(document);
        const before = checkSecrecy(editor.children);
        expect(before.leaks).toEqual([]);
        figures.markerChecks += before.checks;
        for (const command of commands) {
          runCommand(editor, command);
          figures.steps += 1;
          const after = checkSecrecy(editor.children);
          figures.markerChecks += after.checks;
          expect(after.secretLeaves).toBe(0);
          expect(after.leaks, JSON.stringify(editor.children)).toEqual([]);
          // What the editor writes, the server takes (callouts with a kind, `checked` on list items only).
          expect(validateRichText(editor.children, ''), JSON.stringify(editor.children)).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });
});
