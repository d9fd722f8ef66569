/**
 * The test infrastructure (Redis, PostgreSQL, and the scripted model unless the process runs only
 * the database lane) started once per mocha process, shared by the database lane and the stack
 * when one process runs suites of both. Kept on `globalThis`: mocha can load a support module
 * twice (root hooks and suites), and two infrastructures would fight over process.env.
 */
import { startInfrastructure, stopInfrastructure } from "../harness/infrastructure";
import type { ScriptedLlm } from "../harness/scripted-llm";
import { currentLane } from "./lanes";

export interface Infrastructure {
  env: Record<string, string>;
  /** The scripted model server; null in the database lane, which has none. */
  llm: ScriptedLlm | null;
}

interface SharedInfrastructure {
  starting?: Promise<Infrastructure>;
  /** Stops the infrastructure, from the module instance that started it. */
  stop?: () => Promise<void>;
}

export const sharedInfrastructure: SharedInfrastructure = ((
  globalThis as { __skillnetTestInfrastructure?: SharedInfrastructure }
).__skillnetTestInfrastructure ??= {});

export function infrastructureOnce(): Promise<Infrastructure> {
  sharedInfrastructure.starting ??= (async () => {
    sharedInfrastructure.stop = stopInfrastructure;
    // A process of the database lane only never needs a model; one that also runs stack suites does.
    return currentLane() === "database" ? startInfrastructure({ model: false }) : startInfrastructure();
  })();
  return sharedInfrastructure.starting;
}

export async function stopInfrastructureOnce(): Promise<void> {
  if (!sharedInfrastructure.starting) return;
  await (sharedInfrastructure.stop ?? stopInfrastructure)();
  sharedInfrastructure.starting = undefined;
}
