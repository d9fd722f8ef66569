/** Percentiles, clocks and Markdown tables shared by every benchmark module. */

/** Milliseconds since the epoch with sub-millisecond resolution, comparable across processes on one machine. */
export const wallClockMs = (): number => performance.timeOrigin + performance.now();

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarise(values: number[]): Summary {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length ? values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY) : NaN,
  };
}

/** A number for a table cell: one decimal under 10, whole above. */
export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return "–";
  const places = digits ?? (Math.abs(value) < 10 ? 1 : 0);
  return value.toFixed(places);
}

export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cell = (value: string | number): string => (typeof value === "number" ? fmt(value) : value);
  return [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`)].join("\n");
}

/** A table row `[label, n, p50, p90, p99, max]` from raw samples. */
export function summaryRow(label: string, values: number[]): Array<string | number> {
  const s = summarise(values);
  return [label, String(s.n), s.p50, s.p90, s.p99, s.max];
}

export const SUMMARY_HEADERS = ["measure (ms)", "n", "p50", "p90", "p99", "max"];

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `tasks` with at most `limit` in flight. */
export async function pool<T>(count: number, limit: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}
