/**
 * The outbound client against real sockets on loopback: the address it connects to is the one it
 * checked (a resolver whose second answer would be private is asked once), failures are closed,
 * and answers are bounded in size and time without blocking the event loop.
 */
import type { Server } from "node:http";
import { expect } from "chai";
import { AddressPolicy } from "../../../../lib/outbound/address-policy";
import { OutboundClient, OutboundFailure, type Resolver } from "../../../../lib/outbound/client";
import { countingServer } from "../../../support/counting-server";
import { expectNoLongBlock } from "../../../support/event-loop-block";

const listen = countingServer;

const failureOf = (promise: Promise<unknown>): Promise<OutboundFailure> =>
  promise.then(
    () => {
      throw new Error("the request was not refused");
    },
    (error: unknown) => {
      expect(error).to.be.instanceOf(OutboundFailure);
      return error as OutboundFailure;
    },
  );

describe("OutboundClient: resolve once, connect to what was checked, bounded", () => {
  const servers: Server[] = [];
  after(() => servers.forEach((server) => server.close()));

  it("connects to the address it checked: a resolver that would answer a private address the second time is asked once", async () => {
    // 127.0.0.2 stands for the provider's public address (the operator allowed it), 127.0.0.1 for the internal service.
    const provider = await listen("127.0.0.2");
    const internal = await listen("127.0.0.1", undefined, provider.port);
    servers.push(provider.server, internal.server);
    const answers = ["127.0.0.2", "127.0.0.1"];
    let asked = 0;
    const rebinding: Resolver = async () => [{ address: answers[Math.min(asked++, 1)]!, family: 4 }];
    const client = new OutboundClient(new AddressPolicy("127.0.0.2/32"), rebinding);
    const answer = await client.request(`http://idp.rebind.test:${provider.port}/.well-known/openid-configuration`, { timeoutMs: 2_000 });
    expect(answer.status).to.equal(200);
    expect(asked).to.equal(1);
    expect(provider.hits).to.deep.equal(["/.well-known/openid-configuration"]);
    // The next request resolves anew and gets the private answer: refused before any connection.
    const refused = await failureOf(client.request(`http://idp.rebind.test:${provider.port}/jwks`, { timeoutMs: 2_000 }));
    expect(refused.reason).to.equal("address");
    expect(internal.hits).to.deep.equal([]);
  });

  it("refuses a name with any private address among its answers (public then private), and a failed lookup, before connecting", async () => {
    const client = new OutboundClient(new AddressPolicy(""), async (host) => {
      if (host === "mixed.test")
        return [
          { address: "93.184.216.34", family: 4 },
          { address: "127.0.0.1", family: 4 },
        ];
      throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
    });
    expect((await failureOf(client.request("https://mixed.test/jwks", { timeoutMs: 1_000 }))).reason).to.equal("address");
    expect((await failureOf(client.request("https://nowhere.test/jwks", { timeoutMs: 1_000 }))).reason).to.equal("lookup");
  });

  it("refuses loopback names and literals without the allowance, link-local always, and plain HTTP to a public address", async () => {
    const internal = await listen("127.0.0.1");
    servers.push(internal.server);
    const strict = new OutboundClient(new AddressPolicy(""));
    for (const url of [
      `http://127.0.0.1:${internal.port}/`,
      `http://localhost:${internal.port}/`,
      `https://localhost:${internal.port}/`,
      `http://[::ffff:127.0.0.1]:${internal.port}/`,
    ])
      expect((await failureOf(strict.request(url, { timeoutMs: 1_000 }))).reason, url).to.be.oneOf(["address", "scheme"]);
    expect(internal.hits).to.deep.equal([]);
    expect((await failureOf(strict.request("http://93.184.216.34/", { timeoutMs: 1_000 }))).reason).to.equal("scheme");
    const everything = new OutboundClient(new AddressPolicy("0.0.0.0/0,::/0"));
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://[fe80::1]/"])
      expect((await failureOf(everything.request(url, { timeoutMs: 1_000 }))).reason, url).to.equal("address");
  });

  it("does not follow redirects", async () => {
    const target = await listen("127.0.0.1");
    const redirecting = await listen("127.0.0.1", (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` });
      res.end();
    });
    servers.push(target.server, redirecting.server);
    const client = new OutboundClient(new AddressPolicy("127.0.0.0/8"));
    expect((await client.request(`http://127.0.0.1:${redirecting.port}/`, { timeoutMs: 1_000 })).status).to.equal(302);
    const fetched = await client.fetcher({ timeoutMs: 1_000 })(`http://127.0.0.1:${redirecting.port}/`, { method: "GET", headers: {} });
    expect(fetched.status).to.equal(302);
    expect(target.hits).to.deep.equal([]);
  });

  it("cuts a 5 MB answer at 1 MiB while it streams (announced or not), and a silent server at the deadline, without blocking the loop", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const streaming = await listen("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      let sent = 0;
      const more = (): void => {
        while (sent < 5 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    });
    const announcing = await listen("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(5 * 1024 * 1024) });
      res.write(chunk);
    });
    const silent = await listen("127.0.0.1", () => undefined);
    servers.push(streaming.server, announcing.server, silent.server);
    const client = new OutboundClient(new AddressPolicy("127.0.0.0/8"));
    await expectNoLongBlock("a 5 MB discovery answer", async () => {
      expect((await failureOf(client.request(`http://127.0.0.1:${streaming.port}/`, { timeoutMs: 5_000 }))).reason).to.equal("too_large");
      expect((await failureOf(client.request(`http://127.0.0.1:${announcing.port}/`, { timeoutMs: 5_000 }))).reason).to.equal("too_large");
    });
    const started = performance.now();
    expect((await failureOf(client.request(`http://127.0.0.1:${silent.port}/`, { timeoutMs: 300 }))).reason).to.equal("timeout");
    expect(performance.now() - started).to.be.below(2_000);
    // A connection cut mid-answer fails at once, not at the deadline.
    const cut = await listen("127.0.0.1", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"issuer":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    servers.push(cut.server);
    const cutStarted = performance.now();
    expect((await failureOf(client.request(`http://127.0.0.1:${cut.port}/`, { timeoutMs: 5_000 }))).reason).to.equal("network");
    expect(performance.now() - cutStarted).to.be.below(1_000);
  });
});
