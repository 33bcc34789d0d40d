import { Type } from '@sinclair/typebox';
import type { View } from '../../access/view.js';
import type { CampaignRow, ImportJobRow } from '../../db/schema.js';
import type { ImportReport as Report } from '../../portability/import.js';
import { Campaign, presentCampaign } from './campaign.js';
import { Problem, Timestamp } from './common.js';

// The answers of the import routes: the import report (of an import, a dry run and a job), the
// imported campaign, and an import job.

export const ImportReport = Type.Object(
  {
    format: Type.Unsafe<'json' | 'archive' | 'markdown'>({ type: 'string', enum: ['json', 'archive', 'markdown'], description: 'what the file was read as' }),
    thingTypes: Type.Integer({ description: 'thing types created (a dry run: that would be created)' }),
    things: Type.Integer(),
    arcs: Type.Integer(),
    links: Type.Integer({ description: 'thing–arc links' }),
    assets: Type.Integer({ description: 'uploaded images stored' }),
    warnings: Type.Array(
      Type.Object({
        entry: Type.String({ description: 'the file of the zip (its path), or the document, that the warning is about' }),
        problem: Type.String({ description: 'what was left out or changed, in words' }),
      }),
      { description: 'every thing the import left out or changed (members, which are not imported; in a vault from elsewhere, what could not be read as it should and how it was imported instead)' },
    ),
  },
  { description: 'What the import created (or, for a dry run, would create), and every warning' },
);

export const ImportedCampaign = Type.Object(
  { ...Campaign.properties, import: ImportReport },
  { description: 'The new campaign (as GET returns it; the caller is its owner), with a report of what was imported. A repeat with the same Idempotency-Key answers the same: the campaign as it is now, and the first report.' },
);

export const ImportJob = Type.Object(
  {
    id: Type.String({ description: 'the job’s id: random and unguessable; GET /api/imports/{id} follows it' }),
    status: Type.Unsafe<'queued' | 'running' | 'done' | 'failed'>({
      type: 'string',
      enum: ['queued', 'running', 'done', 'failed'],
      description: '`queued` (the file is received, the import has not started), `running`, `done` (see `campaign` and `report`) or `failed` (see `error`; nothing was created). A job whose server stopped while it ran is `failed` (`service_unavailable`).',
    }),
    progress: Type.Object(
      {
        done: Type.Integer({ minimum: 0, description: 'steps done: notes and records read, images stored, records written' }),
        total: Type.Integer({ minimum: 0, description: 'steps known so far: it grows as each phase learns how many it has; `done` ≤ `total`, equal once the job is done' }),
      },
      { description: 'How far the import is' },
    ),
    campaign: Type.Optional(Type.Object(Campaign.properties, { description: 'when `done`: the new campaign as GET /api/campaigns/{campaignSlug} answers it now (absent once it is deleted)' })),
    report: Type.Optional(ImportReport),
    error: Type.Optional(Type.Object(Problem.properties, { description: 'when `failed`: the problem document the import would have answered synchronously (RFC 9457: status, code, title, detail, errors)' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'An import running in the background (`Prefer: respond-async`)' },
);

/** The report as the API answers it. */
export function presentReport(report: Report) {
  return { format: report.format, ...report.counts, warnings: report.warnings };
}

/** The job as the API answers it; `campaign` is the job's campaign (as `view` sees it), when it exists. */
export function presentImportJob(row: ImportJobRow, campaign?: { row: CampaignRow; view: View }) {
  return {
    id: row.id,
    status: row.status,
    progress: { done: row.progress_done, total: row.progress_total },
    ...(row.status === 'done' && campaign ? { campaign: presentCampaign(campaign.row, campaign.view) } : {}),
    ...(row.status === 'done' && row.report !== null ? { report: JSON.parse(row.report) as unknown } : {}),
    ...(row.status === 'failed' && row.error !== null ? { error: JSON.parse(row.error) as unknown } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
