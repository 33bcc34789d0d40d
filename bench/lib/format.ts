// Tables printed as Markdown (readable in a terminal, pasteable into docs/performance.md).

export function table(headers: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const sides = align ?? headers.map((_, i) => (i === 0 ? 'l' : 'r'));
  const cell = (text: string, i: number) => {
    const width = widths[i] ?? 0;
    return sides[i] === 'r' ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: string[]) => `| ${cells.map((c, i) => cell(c, i)).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (sides[i] === 'r' ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** 12345.6 → "12,346"; small values keep one decimal. */
export function num(value: number | undefined, decimals?: number): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  const digits = decimals ?? (Math.abs(value) < 100 ? 1 : 0);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function percent(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  // Small ratios (a write against the baseline) keep a decimal: 0.8%, not 1%.
  return `${(value * 100).toFixed(Math.abs(value) < 0.1 ? 1 : 0)}%`;
}

export function signedPercent(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const p = Math.round(value * 100);
  return `${p > 0 ? '+' : ''}${p}%`;
}

export function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}
