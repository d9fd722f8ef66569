/** Workers refuse a Redis older than the event logs need, by the version INFO reports. */
import { expect } from "chai";
import { MIN_REDIS_VERSION, redisVersionOf, requireRedisVersion, versionAtLeast } from "../../../queues/connection";
import { useDatabase } from "../../support/database";

describe("the Redis version the event logs need", () => {
  it("reads redis_version from INFO server", () => {
    expect(redisVersionOf("# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n")).to.equal("7.0.15");
    expect(redisVersionOf("# Server\r\nvalkey_version:8.0.1\r\n")).to.equal(null);
  });

  it("compares dotted versions part by part", () => {
    expect(versionAtLeast("7.0.15", MIN_REDIS_VERSION)).to.equal(true);
    expect(versionAtLeast("7.0", "7.0.0")).to.equal(true);
    expect(versionAtLeast("7.2.4", "7.10.0")).to.equal(false);
    expect(versionAtLeast("10.0.0", "7.0.0")).to.equal(true);
    expect(versionAtLeast("6.2.14", MIN_REDIS_VERSION)).to.equal(false);
  });

  it("accepts the Redis the suite runs against and refuses an older one, naming both versions", async function () {
    this.timeout(120_000);
    const lane = await useDatabase();
    const redis = lane.deps.redis;
    await requireRedisVersion(redis);
    const pretending = Object.create(redis, { info: { value: async () => "# Server\r\nredis_version:6.2.14\r\n" } });
    const refused = await requireRedisVersion(pretending).catch((error: Error) => error);
    expect(refused).to.be.instanceOf(Error);
    expect((refused as Error).message)
      .to.include("6.2.14")
      .and.to.include(MIN_REDIS_VERSION);
  });
});
