/**
 * Mocha root hooks: tear down what the run started, once, after every test has run — the database
 * lane's connections, the stack, then the infrastructure — if a suite started them. Those modules
 * are loaded only then, so a unit-lane run neither starts nor even imports them.
 */
interface Started {
  starting?: Promise<unknown>;
}
const started = (name: "__skillnetTestStack" | "__skillnetTestDatabase" | "__skillnetTestInfrastructure"): boolean =>
  Boolean((globalThis as Record<string, Started | undefined>)[name]?.starting);

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    if (!started("__skillnetTestInfrastructure")) return;
    this.timeout(60_000);
    if (started("__skillnetTestDatabase")) await (await import("./database")).stopDatabase();
    if (started("__skillnetTestStack")) await (await import("./stack")).stopStack();
    await (await import("./infrastructure-once")).stopInfrastructureOnce();
  },
};
