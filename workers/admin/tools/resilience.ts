/**
 * What stands between the model and a tool that is failing. A database blip (a dropped or
 * refused connection, a server restarting, a statement timeout, a deadlock: recognised by error
 * class and SQLSTATE, never by message text) is retried with exponential backoff; a call that
 * still fails comes back to the model as an error result instead of failing the whole turn. A
 * tool that keeps failing is switched off for a cool-down by a breaker, and its calls meanwhile
 * are not attempted: the model is told the tool is off and until when.
 *
 * The breaker is per organisation and tool, in the worker process: a tool that times out on one
 * organisation's data (a big one, a missing index) stays on for the others, and one
 * organisation's failing turns cannot switch a tool off for everybody. A real outage trips every
 * organisation's breaker on its own within a few calls, which is cheap. Any other error (a bug,
 * a query Postgres refuses) still fails the turn, as before: retrying it would fail the same way.
 */
import { isTransientDatabaseError } from "../../../db/unavailable";

export interface ResilienceSettings {
  retries: number;
  baseDelayMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
}

/** Consecutive failures per `org:tool`, and until when a tripped one stays off. One per worker process. */
export class ToolBreaker {
  private readonly state = new Map<string, { failures: number; openUntil: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** When the tool is off for this organisation, the moment it comes back; else undefined. */
  openUntil(orgId: string, tool: string): number | undefined {
    const entry = this.state.get(`${orgId}:${tool}`);
    if (!entry || entry.openUntil <= this.now()) return undefined;
    return entry.openUntil;
  }

  succeeded(orgId: string, tool: string): void {
    this.state.delete(`${orgId}:${tool}`);
  }

  /** Counts a failed call (after its retries); returns whether this one switched the tool off. */
  failed(orgId: string, tool: string, settings: ResilienceSettings): boolean {
    const key = `${orgId}:${tool}`;
    const entry = this.state.get(key) ?? { failures: 0, openUntil: 0 };
    // A tool back from its cool-down gets one trial call: failing again switches it off again at once.
    entry.failures = entry.openUntil > 0 ? settings.breakerFailures : entry.failures + 1;
    const tripped = entry.failures >= settings.breakerFailures;
    if (tripped) entry.openUntil = this.now() + settings.breakerCooldownMs;
    this.state.set(key, entry);
    return tripped;
  }
}

/** The worker process's breaker, shared by every admin turn it runs. */
export const processToolBreaker = new ToolBreaker();

/** A tool call that did not run or did not finish, in words the model can relay. */
export type Unavailable = { kind: "switched_off"; until: number } | { kind: "failed"; attempts: number; switchedOff: boolean; until?: number };

export function unavailableResult(tool: string, outcome: Unavailable, now = Date.now()): Record<string, unknown> {
  const seconds = (until: number) => Math.max(1, Math.ceil((until - now) / 1000));
  if (outcome.kind === "switched_off") {
    return {
      error: `${tool} is switched off for about ${seconds(outcome.until)} s because it kept failing (the database did not answer). It was not run. Do not call it again in this turn; tell the admin this information is unavailable right now and to try again in a few minutes.`,
      unavailable: true,
    };
  }
  return {
    error:
      `${tool} failed: the database did not answer (${outcome.attempts} attempts). ` +
      (outcome.switchedOff && outcome.until
        ? `It is now switched off for about ${seconds(outcome.until)} s. Do not call it again in this turn; tell the admin this information is unavailable right now.`
        : "Tell the admin this information could not be read right now; you may try once more later."),
    unavailable: true,
  };
}

/**
 * Runs `attempt` through the breaker and retries: the tool's result, or why it is unavailable.
 * Non-transient errors are thrown as they are.
 */
export async function withResilience<T>(
  orgId: string,
  tool: string,
  attempt: () => Promise<T>,
  settings: ResilienceSettings,
  breaker: ToolBreaker = processToolBreaker,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<{ ok: true; value: T } | { ok: false; unavailable: Unavailable }> {
  const until = breaker.openUntil(orgId, tool);
  if (until !== undefined) return { ok: false, unavailable: { kind: "switched_off", until } };
  for (let tries = 1; ; tries++) {
    try {
      const value = await attempt();
      breaker.succeeded(orgId, tool);
      return { ok: true, value };
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
      if (tries > settings.retries) {
        const switchedOff = breaker.failed(orgId, tool, settings);
        const reopens = breaker.openUntil(orgId, tool);
        return { ok: false, unavailable: { kind: "failed", attempts: tries, switchedOff, ...(reopens !== undefined ? { until: reopens } : {}) } };
      }
      await sleep(Math.min(settings.baseDelayMs * 2 ** (tries - 1), settings.baseDelayMs * 8));
    }
  }
}
