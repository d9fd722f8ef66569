import { expect } from "chai";
import { nulPath } from "../../../lib/nul-text";

describe("nulPath: where a NUL character (which PostgreSQL text cannot hold) is in parsed input", () => {
  it("names the first string holding one, through objects, arrays and keys", () => {
    expect(nulPath({ name: "ok", emails: [{ value: "a" }, { value: "b\u0000" }] })).to.equal("emails.1.value");
    expect(nulPath("a\u0000")).to.equal("");
    expect(nulPath({ ["k\u0000"]: 1 })).to.equal("k\\u0000");
  });

  it("finds none in clean input, numbers, nulls and very deep values", () => {
    expect(nulPath({ a: 1, b: null, c: [true, "text"], d: { e: "\u0001" } })).to.equal(undefined);
    let deep: unknown = "x\u0000";
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(nulPath(deep)).to.equal(undefined);
  });
});
