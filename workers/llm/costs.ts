/** Estimated cost per call (USD per million tokens). Local and unknown models count as free. */
const COST_PER_MILLION: Array<[prefix: string, input: number, output: number]> = [
  ["gpt-4o-mini", 0.15, 0.6],
  ["gpt-4o", 2.5, 10],
  ["gpt-4.1-mini", 0.4, 1.6],
  ["gpt-4.1", 2, 8],
  ["deepseek-chat", 0.27, 1.1],
  ["deepseek-reasoner", 0.55, 2.19],
  ["text-embedding-3-small", 0.02, 0],
  ["text-embedding-3-large", 0.13, 0],
];

export function estimateCostUsd(model: string, promptTokens: number, completionTokens: number): number {
  // The client records embedding calls as `embedding:<model>`; price them as the model itself.
  const name = model
    .toLowerCase()
    .replace(/^embedding:/, "")
    .replace(/^.*\//, "");
  const rates = COST_PER_MILLION.filter(([prefix]) => name.startsWith(prefix)).sort((a, b) => b[0].length - a[0].length)[0];
  if (!rates) return 0;
  return Math.round(((promptTokens / 1e6) * rates[1] + (completionTokens / 1e6) * rates[2]) * 1e6) / 1e6;
}
