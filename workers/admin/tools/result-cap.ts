/**
 * Keeps tool results inside a fixed size, so one "list everything" call cannot flood the model's
 * context. Lists are paginated by the tools themselves; this is the backstop: the longest array
 * is cut until the JSON fits, and the result says how much was left out and how to get it.
 */
export const MAX_RESULT_CHARS = 8_000;

export interface CappedResult {
  json: string;
  truncated: boolean;
}

function longestArray(value: Record<string, unknown>): string | undefined {
  let best: string | undefined;
  let length = 0;
  for (const [key, entry] of Object.entries(value)) {
    if (Array.isArray(entry) && entry.length > length) {
      best = key;
      length = entry.length;
    }
  }
  return best;
}

export function capResult(result: Record<string, unknown>, maxChars = MAX_RESULT_CHARS): CappedResult {
  let json = JSON.stringify(result);
  if (json.length <= maxChars) return { json, truncated: false };
  const copy: Record<string, unknown> = { ...result };
  const omitted: Record<string, number> = {};
  for (let guard = 0; guard < 64 && json.length > maxChars; guard++) {
    const key = longestArray(copy);
    if (!key) break;
    const list = copy[key] as unknown[];
    const keep = Math.max(0, Math.floor(list.length * Math.min(0.8, maxChars / json.length)));
    omitted[key] = (omitted[key] ?? 0) + (list.length - keep);
    copy[key] = list.slice(0, keep);
    copy.truncated = { omitted, note: "Result cut to fit; narrow the filters or use offset to see the rest, and tell the admin the list is partial." };
    json = JSON.stringify(copy);
  }
  if (json.length > maxChars)
    json = JSON.stringify({ truncated: true, note: "Result too large to show; narrow the request.", preview: json.slice(0, maxChars / 2) });
  return { json, truncated: true };
}
