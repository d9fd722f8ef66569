/** Where Redis connections go: one server from REDIS_URL, or the master the sentinels name, with the URL's credentials. */
import { expect } from "chai";
import { ConfigError, parseConfig } from "../../../lib/config";
import { redisOptions, redisTargetOf, replicaWaitMs } from "../../../queues/connection";
import { testEnv } from "../../support/tunables";

describe("Redis target (REDIS_URL or REDIS_SENTINELS)", () => {
  it("builds sentinel connections that keep retrying, with the master's credentials and TLS from REDIS_URL", () => {
    const config = parseConfig(
      testEnv({
        REDIS_SENTINELS: "sentinel-a:26379,10.0.0.2:26380",
        REDIS_SENTINEL_NAME: "queues",
        REDIS_SENTINEL_PASSWORD: "sentinel-secret",
        REDIS_URL: "rediss://app:p%40ss@ignored-host:1/2",
      }),
    );
    const target = redisTargetOf(config);
    expect(target.sentinel).to.deep.equal({
      sentinels: [
        { host: "sentinel-a", port: 26379 },
        { host: "10.0.0.2", port: 26380 },
      ],
      name: "queues",
      password: "sentinel-secret",
    });
    const options = redisOptions(target, "worker");
    expect(options).to.include({
      name: "queues",
      sentinelPassword: "sentinel-secret",
      username: "app",
      password: "p@ss",
      db: 2,
      enableTLSForSentinelMode: true,
    });
    expect(options.host, "the sentinels name the host").to.equal(undefined);
    expect(options.maxRetriesPerRequest, "BullMQ workers need null").to.equal(null);
    // A null here would end the client for good (bullmq #3088/#4378): it must always name a delay.
    for (const attempt of [1, 10, 1000]) expect(options.sentinelRetryStrategy!(attempt)).to.be.a("number");
    expect(options.reconnectOnError!(new Error("READONLY You can't write against a read only replica."))).to.equal(true);
    expect(replicaWaitMs(config)).to.equal(250);
  });

  it("keeps a single Redis as before, and needs one of the two", () => {
    const single = parseConfig(testEnv({ REDIS_URL: "redis://cache:6380/1" }));
    const options = redisOptions(redisTargetOf(single), "producer");
    expect(options).to.include({ host: "cache", port: 6380, db: 1, maxRetriesPerRequest: 1 });
    expect(options.sentinels).to.equal(undefined);
    expect(replicaWaitMs(single), "no WAIT on a single Redis").to.equal(0);
    expect(() => redisTargetOf(parseConfig(testEnv({})))).to.throw(ConfigError, /REDIS_URL/);
  });

  it("rejects a malformed sentinel list by name", () => {
    expect(() => parseConfig(testEnv({ REDIS_SENTINELS: "sentinel-a, sentinel-b:26379" }))).to.throw(ConfigError, /REDIS_SENTINELS/);
  });
});
