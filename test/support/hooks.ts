/**
 * Mocha root hooks: tear down the shared stack once, after every test has run — if a suite started
 * it. The stack module (the server, the workers, the infrastructure harness) is loaded only then,
 * so a run of logic suites (`npm run test:unit`) neither starts nor even imports the stack.
 */
interface SharedStack {
  starting?: Promise<unknown>;
}

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    if (!(globalThis as { __skillnetTestStack?: SharedStack }).__skillnetTestStack?.starting) return;
    this.timeout(60_000);
    const { stopStack } = await import("./stack");
    await stopStack();
  },
};
