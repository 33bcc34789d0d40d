// The import's report (the dry run's, and the finished job's): what comes in, and every warning.
// A vault may have hundreds of warnings: past WARNINGS_FLAT they are grouped by what happened (the
// problem's words before its first colon), each group a disclosure saying how many files it holds.
import { useId } from 'react';
import type { ImportReport as Report, ImportWarning } from './api';

/** Up to this many warnings are one plain list. */
export const WARNINGS_FLAT = 20;

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

const FORMATS: Record<Report['format'], string> = { archive: 'an archive exported from Loreforge', json: 'a JSON document exported from Loreforge', markdown: 'a Markdown vault' };

export function formatName(format: Report['format']): string {
  return FORMATS[format] ?? format;
}

export function ImportCounts({ report }: { report: Report }) {
  return (
    <ul className="import-counts">
      <li>{plural(report.thingTypes, 'thing type')}</li>
      <li>{plural(report.things, 'thing')}</li>
      <li>{plural(report.arcs, 'story arc')}</li>
      <li>{plural(report.links, 'link')} between things and arcs</li>
      <li>{plural(report.assets, 'image')}</li>
    </ul>
  );
}

export interface WarningGroup {
  /** What happened, shared by every warning of the group. */
  problem: string;
  /** Each file, with the rest of its problem's words (after the shared part), if any. */
  items: { entry: string; detail: string }[];
}

/** Warnings grouped by the words of their problem before its first ": " (the whole problem if it has none); the largest group first, then in the order they came. */
export function groupWarnings(warnings: readonly ImportWarning[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const { entry, problem } of warnings) {
    const colon = problem.indexOf(': ');
    const split = colon > 0 && colon + 2 < problem.length;
    const head = split ? problem.slice(0, colon) : problem;
    const detail = split ? problem.slice(colon + 2) : '';
    let group = groups.get(head);
    if (!group) groups.set(head, (group = { problem: head, items: [] }));
    group.items.push({ entry, detail });
  }
  return [...groups.values()].sort((a, b) => b.items.length - a.items.length);
}

export function ImportWarnings({ warnings }: { warnings: readonly ImportWarning[] }) {
  const headingId = useId();
  if (warnings.length === 0) return <p className="muted">No warnings: every file comes in as it is.</p>;
  return (
    <section aria-labelledby={headingId} className="import-warnings">
      <h3 id={headingId}>{plural(warnings.length, 'warning')}</h3>
      <p className="muted">What is changed or left out, file by file:</p>
      {warnings.length <= WARNINGS_FLAT ? (
        <ul>
          {warnings.map((warning, i) => (
            <li key={i}>
              <code>{warning.entry}</code>: {warning.problem}
            </li>
          ))}
        </ul>
      ) : (
        groupWarnings(warnings).map((group) => (
          <details key={group.problem} className="warning-group">
            <summary>
              {group.problem} <span className="muted">({plural(group.items.length, 'file')})</span>
            </summary>
            <ul>
              {group.items.map((item, i) => (
                <li key={i}>
                  <code>{item.entry}</code>
                  {item.detail && `: ${item.detail}`}
                </li>
              ))}
            </ul>
          </details>
        ))
      )}
    </section>
  );
}
