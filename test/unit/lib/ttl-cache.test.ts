/** The bounded TTL cache the worker's search memory is made of (lib/ttl-cache.ts). */
import { expect } from "chai";
import { TtlCache } from "../../../lib/ttl-cache";

describe("TtlCache", () => {
  it("answers an entry until it is ttlMs old, then reads it as missing", () => {
    let now = 1_000;
    const cache = new TtlCache<number>(60, 10, () => now);
    cache.set("org", 7);
    now += 59;
    expect(cache.get("org")).to.equal(7);
    now += 1;
    expect(cache.get("org")).to.equal(undefined);
  });

  it("keeps a falsy value (an org with 0 chunks, a decision of false) as a value, not as missing", () => {
    const cache = new TtlCache<number | boolean>(60_000);
    cache.set("size", 0);
    cache.set("pending", false);
    expect(cache.get("size")).to.equal(0);
    expect(cache.get("pending")).to.equal(false);
  });

  it("starts over once maxEntries are held, so it never grows past its bound", () => {
    const cache = new TtlCache<number>(60_000, 3);
    for (const key of ["a", "b", "c"]) cache.set(key, 1);
    cache.set("d", 2);
    expect(["a", "b", "c"].map((key) => cache.get(key))).to.deep.equal([undefined, undefined, undefined]);
    expect(cache.get("d")).to.equal(2);
  });
});
