/**
 * The set-up most suites repeated: the shared stack (started once for the run), the scripted
 * model reset around each test, an optional clean-up after the suite. Call it first thing
 * inside `describe(..., function () { ... })`; it returns the stack (usable once `before` ran).
 */
import { useStack, type Stack } from "./stack";

export interface StackSuiteOptions {
  /** Per-test timeout; the stack's first start gets 120 s regardless. */
  timeoutMs?: number;
  /** Reset the scripted model before and after each test (default true). */
  resetModel?: boolean;
  /** Runs once after the suite, e.g. removeFreshEmployees. */
  cleanUp?: (stack: Stack) => Promise<unknown>;
}

export function stackSuite(suite: Mocha.Suite, options: StackSuiteOptions = {}): Stack {
  let started: Stack | undefined;
  suite.timeout(options.timeoutMs ?? 60_000);
  suite.beforeAll(async function () {
    this.timeout(120_000);
    started = await useStack();
  });
  if (options.resetModel ?? true) {
    suite.beforeEach(() => started?.llm.reset());
    suite.afterEach(() => started?.llm.reset());
  }
  if (options.cleanUp) suite.afterAll(() => (started ? options.cleanUp!(started) : undefined));
  return new Proxy({} as Stack, {
    get(_, key) {
      if (!started) throw new Error("the stack is used before the suite's before() hook started it");
      return started[key as keyof Stack];
    },
  });
}
