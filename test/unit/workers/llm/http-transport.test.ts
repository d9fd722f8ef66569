/**
 * The model clients' fetch over node:http: JSON replies are read through the web body as the SDK
 * reads them, streamed bodies keep their Node stream for the SSE reader, request headers and body
 * arrive as sent, an abort ends the request, and a status without a body has none.
 */
import { expect } from "chai";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { modelFetch, nodeBodyOf } from "../../../../workers/llm/http-transport";

describe("model HTTP transport (fetch over node:http)", () => {
  let server: Server;
  let base: string;
  let seen: { method?: string; headers?: IncomingMessage["headers"]; body?: string } = {};

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        seen = { method: req.method, headers: req.headers, body };
        if (req.url === "/json") return res.writeHead(200, { "content-type": "application/json", "x-request-id": "r1" }).end('{"ok":true}');
        if (req.url === "/empty") return res.writeHead(204).end();
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 5_000).unref();
        if (req.url === "/cut") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write("data: one\n\n");
          return void setTimeout(() => res.socket?.destroy(), 50);
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end("data: one\n\n");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("sends the method, headers and body, and a JSON reply reads through the web body", async () => {
    const response = await modelFetch(`${base}/json`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json", "accept-encoding": "gzip" },
      body: '{"q":1}',
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("x-request-id")).to.equal("r1");
    expect(await response.json()).to.deep.equal({ ok: true });
    expect(seen.method).to.equal("POST");
    expect(seen.body).to.equal('{"q":1}');
    expect(seen.headers?.authorization).to.equal("Bearer sk-test");
    expect(seen.headers?.["accept-encoding"], "no compression is asked for").to.equal(undefined);
  });

  it("keeps a streamed body's Node stream for the SSE reader", async () => {
    const response = await modelFetch(`${base}/stream`, { method: "POST", body: "{}" });
    const incoming = nodeBodyOf(response);
    expect(incoming, "the Node stream").to.not.equal(undefined);
    let text = "";
    for await (const chunk of incoming!) text += chunk;
    expect(text).to.equal("data: one\n\n");
  });

  it("survives a body cut mid-way that nobody reads, and a reader sees the cut", async () => {
    const unread = await modelFetch(`${base}/cut`, { method: "POST", body: "{}" });
    expect(unread.status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await modelFetch(`${base}/cut`, { method: "POST", body: "{}" });
    const failure = await read.text().then(
      () => null,
      (error: Error) => error,
    );
    expect(failure, "the cut surfaces as an error to the reader").to.be.instanceOf(Error);
  });

  it("gives a bodiless status no body, and an aborted request rejects as an abort", async () => {
    const empty = await modelFetch(`${base}/empty`);
    expect(empty.status).to.equal(204);
    expect(empty.body).to.equal(null);
    const controller = new AbortController();
    const pending = modelFetch(`${base}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await pending.then(
      () => null,
      (failure: Error) => failure,
    );
    expect(error?.name).to.equal("AbortError");
    expect(performance.now() - started).to.be.below(2_000);
  });
});
