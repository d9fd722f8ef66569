/** Mocha root hooks: tear down the shared stack once, after every test has run. */
import { stopStack } from "./stack";

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStack();
  },
};
