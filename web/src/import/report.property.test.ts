// The report's grouping of warnings and the job's milestones, for any input: no warning is lost or
// doubled by the grouping, and a polite live region that follows a job's progress says at most a
// handful of things however many steps the job has.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ImportJob } from './api';
import { milestone, percentOf } from './job';
import { groupWarnings } from './report';

const warning = fc.record({ entry: fc.string({ maxLength: 30 }), problem: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('neither Markdown nor an image: not imported', 'front matter is not valid YAML: line 3', 'a note over the limit', 'ends with a colon: ', ': starts with one')) });

describe('groupWarnings', () => {
  it('keeps every warning exactly once, its problem whole again as the group’s words and its detail, the larger groups first', () => {
    fc.assert(
      fc.property(fc.array(warning, { maxLength: 80 }), (warnings) => {
        const groups = groupWarnings(warnings);
        const back = groups.flatMap((group) => group.items.map((item) => ({ entry: item.entry, problem: item.detail ? `${group.problem}: ${item.detail}` : group.problem })));
        const key = (w: { entry: string; problem: string }) => JSON.stringify([w.entry, w.problem]);
        expect(back.map(key).sort()).toEqual(warnings.map(key).sort());
        expect(new Set(groups.map((group) => group.problem)).size).toBe(groups.length);
        for (let i = 1; i < groups.length; i++) expect(groups[i - 1]!.items.length).toBeGreaterThanOrEqual(groups[i]!.items.length);
      }),
    );
  });
});

describe('milestone', () => {
  it('says at most five things, each once, while a job runs from nothing to all its steps, and stays within 0–100 %', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 200 }), (total, steps) => {
        const dones = steps.map((step) => step % (total + 1)).sort((a, b) => a - b);
        const said = dones.map((done) => {
          const job: Pick<ImportJob, 'status' | 'progress'> = { status: 'running', progress: { done, total } };
          const percent = percentOf(job.progress);
          expect(percent).toBeGreaterThanOrEqual(0);
          expect(percent).toBeLessThanOrEqual(100);
          return milestone(job);
        });
        const changes = said.filter((text, i) => i > 0 && text !== said[i - 1]).length;
        expect(changes).toBeLessThanOrEqual(4);
        expect(new Set(said).size).toBeLessThanOrEqual(5);
      }),
    );
  });

  it('says done and failed as such', () => {
    expect(milestone({ status: 'done', progress: { done: 9, total: 9 } })).toBe('Import done.');
    expect(milestone({ status: 'failed', progress: { done: 2, total: 9 } })).toBe('Import failed.');
    expect(milestone({ status: 'queued', progress: { done: 0, total: 0 } })).toBe('Import waiting to start.');
  });
});
