/**
 * LlmClient.stream() against a model server scripted byte by byte: the chunks one socket read
 * carries reach `onToken` as one piece, chunks that arrive apart reach it one by one, and an
 * error event in the stream is handled as the SDK's error was (retried before the first token,
 * `partial` after).
 */
import { expect } from "chai";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LlmError } from "../../../../workers/llm/errors";
import { makeClient, rejection } from "../../../workers/llm/helpers";

const QUESTION = [{ role: "user" as const, content: "How many days do I have to return an item?" }];

const sse = (payload: unknown): string => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
const delta = (content: string) => ({
  id: "c1",
  object: "chat.completion.chunk",
  model: "scripted-model",
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const usage = {
  id: "c1",
  object: "chat.completion.chunk",
  model: "scripted-model",
  choices: [],
  usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
};

/** Writes several SSE events as separate HTTP chunks in one TCP write (as a busy server does). */
function writeTogether(res: ServerResponse, events: string[]): void {
  res.socket?.cork();
  for (const event of events) res.write(event);
  res.socket?.uncork();
}

type Script = (res: ServerResponse) => Promise<void> | void;

describe("LlmClient.stream() reading the model's bytes", function () {
  this.timeout(20_000);
  let server: Server;
  let url: string;
  const scripts: Script[] = [];
  let requests = 0;
  /** Resolves the server's wait for the client to have shown what it sent. */
  let shown: (() => void) | undefined;
  const clientShowed = () => new Promise<void>((resolve) => (shown = resolve));

  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      req.resume();
      req.on("end", () => {
        res.socket?.setNoDelay(true);
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.flushHeaders();
        void scripts.shift()?.(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    scripts.length = 0;
    requests = 0;
    shown = undefined;
  });

  const streamWith = (onToken: (text: string) => Promise<void> | void) => makeClient({ url }).client.stream({ useCase: "tutor" }, QUESTION, {}, onToken);

  it("calls onToken once for the chunks one read carried, with their text joined", async () => {
    scripts.push((res) => {
      writeTogether(res, [sse(delta("You have")), sse(delta(" thirty")), sse(delta(" days")), sse(delta(".")), sse(usage), sse("[DONE]")]);
      res.end();
    });
    const tokens: string[] = [];
    const result = await streamWith((text) => void tokens.push(text));
    expect(tokens).to.deep.equal(["You have thirty days."]);
    expect(result.content).to.equal("You have thirty days.");
    expect(result.promptTokens).to.equal(11);
    expect(result.completionTokens).to.equal(4);
  });

  it("calls onToken once per chunk when the chunks arrive apart", async () => {
    scripts.push(async (res) => {
      for (const piece of ["You have", " thirty", " days."]) {
        const showedIt = clientShowed();
        res.write(sse(delta(piece)));
        await showedIt;
      }
      res.end(sse("[DONE]"));
    });
    const tokens: string[] = [];
    const result = await streamWith((text) => {
      tokens.push(text);
      shown?.();
    });
    expect(tokens).to.deep.equal(["You have", " thirty", " days."]);
    expect(result.content).to.equal("You have thirty days.");
  });

  it("returns only once onToken is done with the last read, also when the body ended in that read", async () => {
    scripts.push((res) => void res.end(sse(delta("Thirty")) + sse(delta(" days.")) + sse("[DONE]")));
    const handled: string[] = [];
    const result = await streamWith(async (text) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      handled.push(text);
    });
    expect(handled, "the caller had finished with the text before the call returned").to.deep.equal(["Thirty days."]);
    expect(result.content).to.equal("Thirty days.");
  });

  it("retries a stream whose first event is an error event, and answers from the retry", async () => {
    scripts.push((res) => void res.end(sse({ error: { message: "overloaded", type: "server_error" } })));
    scripts.push((res) => void res.end(sse(delta("Thirty days.")) + sse("[DONE]")));
    const tokens: string[] = [];
    const result = await streamWith((text) => void tokens.push(text));
    expect(result.content).to.equal("Thirty days.");
    expect(tokens).to.deep.equal(["Thirty days."]);
    expect(requests).to.equal(2);
  });

  it("fails an error event after text was shown as LLM_UNAVAILABLE with partial, without a retry", async () => {
    scripts.push(async (res) => {
      const showedIt = clientShowed();
      res.write(sse(delta("Thirty")));
      await showedIt;
      res.end(sse({ error: { message: "overloaded", type: "server_error" } }));
    });
    const tokens: string[] = [];
    const error = await rejection(
      streamWith((text) => {
        tokens.push(text);
        shown?.();
      }),
    );
    expect(error).to.be.instanceOf(LlmError);
    expect((error as LlmError).code).to.equal("LLM_UNAVAILABLE");
    expect((error as LlmError).options.partial).to.equal(true);
    expect(tokens).to.deep.equal(["Thirty"]);
    expect(requests).to.equal(1);
  });
});
