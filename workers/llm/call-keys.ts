/**
 * Names each model call so the usage ledger charges it once. Inside a job the name is the job
 * (queue and id) plus a fingerprint of what was sent, and a count for identical calls in one run:
 * a job that is retried or re-run and sends the same request again gets the same name, while a
 * resumed job that goes on with new input (the next embedding batch) gets new ones. Outside a
 * job (scripts, checks) every call is new.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomUUID } from "node:crypto";

interface CallScope {
  job: string;
  seen: Map<string, number>;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Runs one job attempt; every model call inside it is named after `job`. */
export function withCallScope<T>(job: string, run: () => T): T {
  return scope.run({ job, seen: new Map() }, run);
}

/** The key of a call that sent `request` (anything JSON) to `model`. */
export function callKeyFor(model: string, request: unknown): string {
  const current = scope.getStore();
  if (!current) return randomUUID();
  const fingerprint = createHash("sha256").update(model).update("\u0000").update(JSON.stringify(request)).digest("hex").slice(0, 32);
  const occurrence = (current.seen.get(fingerprint) ?? 0) + 1;
  current.seen.set(fingerprint, occurrence);
  return `${current.job}:${fingerprint}:${occurrence}`;
}
