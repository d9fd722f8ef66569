/**
 * How `npm run sync` speaks HTTP (ops/cli/sync-client.ts), against a small local server that
 * answers what the real one can: a 429 is waited out, a 5xx tried again, the file's own refusals
 * reported as skips, a 404 on DELETE taken as already removed, the list followed page by page.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { HttpSyncApi } from "../../../ops/cli/sync-client";

type Answer = { status: number; body?: unknown };

describe("ops/cli/sync-client.ts: the sync's HTTP client", () => {
  let server: Server;
  let baseUrl: string;
  const seen: string[] = [];
  let answers: Answer[] = [];

  before(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on("end", () => {
        seen.push(`${request.method} ${request.url} ${request.headers.authorization}`);
        const answer = answers.shift() ?? { status: 500 };
        response.writeHead(answer.status, { "content-type": "application/json" });
        response.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen.length = 0;
    answers = [];
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const document = (id: string) => ({ external_id: id, content_hash: "h", status: "COMPLETED" });

  it("waits out a 429 and follows the list page by page, with the key as a bearer token", async () => {
    answers = [
      { status: 429, body: { error: { code: "RATE_LIMITED", message: "slow down", retry_after: 1 } } },
      { status: 200, body: { documents: [document("s:a.md")], next_after: "s:a.md" } },
      { status: 200, body: { documents: [document("s:b.md")], next_after: null } },
    ];
    const listed = await new HttpSyncApi(baseUrl, "skn_test").list("s:");
    expect(listed.map((d) => d.external_id)).to.deep.equal(["s:a.md", "s:b.md"]);
    expect(seen).to.have.length(3);
    expect(seen[2]).to.include("after=s%3Aa.md");
    for (const line of seen) expect(line).to.match(/prefix=s%3A.* Bearer skn_test$/);
  });

  it("tries a 5xx again, reports the file's own refusals as skips and other failures as failures", async () => {
    const api = new HttpSyncApi(baseUrl, "skn_test");
    answers = [{ status: 503 }, { status: 201, body: { result: "created", document: { status: "PENDING", error: null } } }];
    expect(await api.put("s:a.md", { name: "a.md", bytes: Buffer.from("a") })).to.deep.equal({ ok: true, result: "created", failed: null });
    expect(seen.map((line) => line.split(" ")[0])).to.deep.equal(["PUT", "PUT"]);

    answers = [{ status: 413, body: { error: { code: "FILE_TOO_LARGE", message: "too big" } } }];
    expect(await api.put("s:big.md", { name: "big.md", bytes: Buffer.from("b") })).to.deep.equal({ ok: false, skip: true, reason: "FILE_TOO_LARGE: too big" });
    answers = [{ status: 403, body: { error: { code: "INTEGRATION_SCOPE_MISSING", message: "needs documents:write" } } }];
    expect(await api.put("s:c.md", { name: "c.md", bytes: Buffer.from("c") })).to.deep.equal({
      ok: false,
      skip: false,
      reason: "INTEGRATION_SCOPE_MISSING: needs documents:write",
    });
  });

  it("takes a 404 on DELETE as already removed, and sends a rename as JSON", async () => {
    const api = new HttpSyncApi(baseUrl, "skn_test");
    answers = [{ status: 404, body: { error: { code: "NOT_FOUND", message: "gone" } } }];
    expect(await api.remove("s:gone.md")).to.deep.equal({ ok: true });
    answers = [{ status: 409, body: { error: { code: "EXTERNAL_ID_TAKEN", message: "taken" } } }];
    expect(await api.rename("s:a.md", "s:b.md")).to.deep.equal({ ok: false, reason: "EXTERNAL_ID_TAKEN: taken" });
    expect(seen.at(-1)).to.match(/^PATCH \/api\/v1\/integrations\/documents\/s%3Aa\.md /);
  });
});
