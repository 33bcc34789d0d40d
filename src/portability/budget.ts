// What one import may spend (CONTRACT "Hostile input"): the uncompressed bytes it reads from its
// file in all (IMPORT_MAX_EXPANDED_BYTES), counted as entries are inflated, and whether its client
// is still there. Every step of an import reads through one budget and checks it between steps, so
// a zip bomb stops at the budget and an import whose client went away stops at the next check.
import { AppError } from '../domain/errors.js';
import { errors } from '../domain/errors.js';

/** The import was stopped because its client went away: nothing was created, nobody to answer. */
export class ImportCancelled extends Error {
  constructor() {
    super('the import was cancelled: its client went away');
    this.name = 'ImportCancelled';
  }
}

/** How far an import is (CONTRACT "Import from elsewhere": a job's `progress`). */
export interface ImportProgress {
  done: number;
  total: number;
}

export class ImportBudget {
  private read = 0;
  private readonly progressNow: ImportProgress = { done: 0, total: 0 };
  /** Called after each change of the progress (a job stores it; throttling is the listener's business). */
  onProgress: ((progress: Readonly<ImportProgress>) => void) | undefined;

  constructor(
    /** IMPORT_MAX_EXPANDED_BYTES. */
    readonly maxExpandedBytes: number,
    readonly signal: AbortSignal = new AbortController().signal,
  ) {}

  /** Uncompressed bytes read so far. */
  get expandedBytes(): number {
    return this.read;
  }

  /** The steps done and known so far: every note or record read, every image staged, every record written. */
  get progress(): Readonly<ImportProgress> {
    return this.progressNow;
  }

  /** `steps` more steps are known to come (each phase adds its own once it knows how many). */
  addSteps(steps: number): void {
    this.progressNow.total += steps;
    this.onProgress?.(this.progressNow);
  }

  /** `steps` steps are done (never past the total known). */
  advance(steps = 1): void {
    this.progressNow.done = Math.min(this.progressNow.total, this.progressNow.done + steps);
    this.onProgress?.(this.progressNow);
  }

  /** Throws when the client has gone away. */
  check(): void {
    if (this.signal.aborted) throw new ImportCancelled();
  }

  private exceeded(entry: string): AppError {
    return errors.invalidImport(entry, `the import would read more than the ${this.maxExpandedBytes} uncompressed bytes one import may read in all (IMPORT_MAX_EXPANDED_BYTES)`);
  }

  /** Refuses the file before anything is read when the entries it must read declare more than the budget. */
  checkDeclared(label: string, sizes: Iterable<number>): void {
    let total = 0;
    for (const size of sizes) total += size;
    if (total > this.maxExpandedBytes) throw this.exceeded(label);
  }

  /** Counts `bytes` read from `entry`; throws past the budget. */
  spend(bytes: number, entry: string): void {
    this.read += bytes;
    if (this.read > this.maxExpandedBytes) throw this.exceeded(entry);
  }
}
