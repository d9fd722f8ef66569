/**
 * Mocha root hooks: tear down what the run started, once, after every test has run — the shared
 * Chromium, the database lane's connections, the stack, then the infrastructure — if a suite
 * started them. Those modules are loaded only then, so a unit-lane run neither starts nor even
 * imports them.
 */
interface Started {
  starting?: Promise<unknown>;
}
const started = (name: "__skillnetTestStack" | "__skillnetTestDatabase" | "__skillnetTestInfrastructure" | "__skillnetTestBrowser"): boolean =>
  Boolean((globalThis as Record<string, Started | undefined>)[name]?.starting);

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    if (started("__skillnetTestBrowser")) await (await import("../web/browser")).closeSharedBrowser();
    if (!started("__skillnetTestInfrastructure")) return;
    if (started("__skillnetTestDatabase")) await (await import("./database")).stopDatabase();
    if (started("__skillnetTestStack")) await (await import("./stack")).stopStack();
    await (await import("./infrastructure-once")).stopInfrastructureOnce();
  },
};
