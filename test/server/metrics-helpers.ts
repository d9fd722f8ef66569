/** Reading Prometheus text exposition in tests: samples by series, declared names, and deltas. */
import { expect } from "chai";
import { api } from "../harness/client";
import type { Stack } from "../support/stack";

export interface Scrape {
  text: string;
  /** `name{label="value",…}` exactly as exported → value. */
  samples: Map<string, number>;
  /** Every declared metric name (from `# TYPE`) → its type. */
  types: Map<string, string>;
}

export function parseExposition(text: string): Scrape {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const declared = /^# TYPE (\S+) (\S+)/.exec(line);
    if (declared) types.set(declared[1]!, declared[2]!);
    else if (line && !line.startsWith("#")) {
      const space = line.lastIndexOf(" ");
      samples.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
  }
  return { text, samples, types };
}

export async function scrape(stack: Stack): Promise<Scrape> {
  const response = await api(stack.baseUrl, "GET", "/metrics");
  expect(response.status).to.equal(200);
  return parseExposition(String(response.body));
}

/** The sum of every sample of `name` whose labels include all of `labels` (0 when none). */
export function total(scraped: Scrape, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [series, value] of scraped.samples) {
    const brace = series.indexOf("{");
    if ((brace < 0 ? series : series.slice(0, brace)) !== name) continue;
    if (Object.entries(labels).every(([key, wanted]) => series.includes(`${key}="${wanted}"`))) sum += value;
  }
  return sum;
}

const HISTOGRAM_SUFFIXES = ["_bucket", "_count", "_sum"];

/** Is `name` (as a query would write it) exported: itself, or a histogram/summary's series? */
export function isExported(scraped: Scrape, name: string): boolean {
  if (scraped.types.has(name)) return true;
  const suffix = HISTOGRAM_SUFFIXES.find((s) => name.endsWith(s));
  if (!suffix) return false;
  const type = scraped.types.get(name.slice(0, -suffix.length));
  return type === "histogram" || (type === "summary" && suffix !== "_bucket");
}
