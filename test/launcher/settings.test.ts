/** The launcher's own settings (launcher/settings.ts) beside the product's: one message names every bad variable of both. */
import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { environmentSchema } from "../../lib/config";
import { launcherSchema, MAX_FAST_CRASHES, parseLauncherConfig } from "../../launcher/settings";

describe("launcher settings", function () {
  this.timeout(30_000);

  it("are not part of the product's schema, and have the defaults npm start documents", () => {
    expect(Object.keys(environmentSchema.shape)).to.not.include.members(Object.keys(launcherSchema.shape));
    expect(parseLauncherConfig({})).to.include({ DATA_DIR: ".data", EMBEDDED_POSTGRES: "auto", EMBEDDED_REDIS_PORT: 6390 });
    expect(MAX_FAST_CRASHES, "a constant now, no longer LAUNCHER_MAX_FAST_CRASHES").to.equal(5);
  });

  it("make npm start exit non-zero naming a bad launcher setting and a bad product setting together", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "launcher/start.ts"], {
      env: { PATH: process.env.PATH, PORT: "not-a-port", EMBEDDED_REDIS_PORT: "not-a-port", DATA_DIR: "/tmp/wt-launcher-settings-unused" },
      encoding: "utf8",
      timeout: 25_000,
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include("PORT:").and.include("EMBEDDED_REDIS_PORT:");
  });
});
