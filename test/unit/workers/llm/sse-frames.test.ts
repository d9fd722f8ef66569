/**
 * The SSE decoder of model streams: whatever way the bytes are split across reads, it yields the
 * same events the SDK's iterator did, and one read's events as one frame.
 */
import { expect } from "chai";
import OpenAI from "openai";
import { classifyFault } from "../../../../workers/llm/errors";
import { parseChatChunk, readSseFrames, SseDecoder } from "../../../../workers/llm/sse-frames";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Feeds `wire` to a fresh decoder in the given pieces; the events of each push, in order. */
function frames(pieces: Uint8Array[], parse: (data: string) => unknown = parseChatChunk()): unknown[][] {
  const decoder = new SseDecoder(parse);
  return pieces.map((piece) => decoder.push(piece));
}

/** Every way of cutting `wire` in two, plus one byte per read: each must give the same events. */
function everySplit(wire: string): Uint8Array[][] {
  const all = bytes(wire);
  const splits: Uint8Array[][] = [];
  for (let at = 0; at <= all.length; at++) splits.push([all.slice(0, at), all.slice(at)]);
  splits.push(Array.from(all, (byte) => Uint8Array.of(byte)));
  return splits;
}

function expectEverySplit(wire: string, events: unknown[], parse?: (data: string) => unknown): void {
  for (const pieces of everySplit(wire)) {
    const sizes = pieces.map((piece) => piece.length).join("+");
    expect(frames(pieces, parse).flat(), `split ${sizes}`).to.deep.equal(events);
  }
}

const chunk = (content: string) => ({ choices: [{ index: 0, delta: { content } }] });
const event = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
/** Keeps an event's data as it came, to see exactly how lines were joined. */
const raw = (data: string): string => data;

describe("SseDecoder", () => {
  it("gives every event one read completed as one frame, and carries a partial event to the next read", () => {
    const wire = event(chunk("Thirty")) + event(chunk(" days")) + event(chunk(" from"));
    const cut = wire.indexOf("from") - 3;
    expect(frames([bytes(wire.slice(0, cut)), bytes(wire.slice(cut))])).to.deep.equal([[chunk("Thirty"), chunk(" days")], [chunk(" from")]]);
  });

  it("decodes the same events wherever a read ends: mid-line, mid-field, between the two newlines", () => {
    expectEverySplit(event(chunk("Thirty")) + event(chunk(" days.")), [chunk("Thirty"), chunk(" days.")]);
  });

  it("keeps a character whose UTF-8 bytes straddle two reads", () => {
    const text = "Délai : 30 jours — 三十天 😀";
    expectEverySplit(event(chunk(text)), [chunk(text)]);
  });

  it("reads CRLF and lone-CR line endings, even when a read ends between CR and LF", () => {
    const payload = JSON.stringify(chunk("ok"));
    expectEverySplit(`data: ${payload}\r\n\r\ndata: ${payload}\r\rdata: ${payload}\n\n`, [chunk("ok"), chunk("ok"), chunk("ok")]);
    expectEverySplit("data: one\r\ndata: two\r\n\r\ndata: three\r\n\r\n", ["one\ntwo", "three"], raw);
  });

  it("ignores comments, keep-alive pings and fields other than data", () => {
    const wire = `: keep-alive\n\n:ping\nevent: delta\nid: 7\nretry: 1000\n${event(chunk("a"))}: OPENROUTER PROCESSING\n\n`;
    expectEverySplit(wire, [chunk("a")]);
  });

  it("joins multi-line data with a newline, with or without the space after the colon", () => {
    expectEverySplit("data: one\ndata:two\ndata\ndata:  four\n\n", ["one\ntwo\n\n four"], raw);
    expectEverySplit('data: {"text":\ndata:"two"}\n\n', [{ text: "two" }]);
  });

  it("stops at [DONE] and ignores what follows it", () => {
    const decoder = new SseDecoder(parseChatChunk());
    const events = decoder.push(bytes(`${event(chunk("a"))}data: [DONE]\n\n${event(chunk("after"))}`));
    expect(events).to.deep.equal([chunk("a")]);
    expect(decoder.done).to.equal(true);
    expect(decoder.push(bytes(event(chunk("later"))))).to.deep.equal([]);
  });

  it("drops an event the body ends in the middle of (no blank line after it), as the SDK did", () => {
    expect(frames([bytes(`${event(chunk("a"))}data: {"choices":[]}\n`)]).flat()).to.deep.equal([chunk("a")]);
  });

  it("throws the SDK's APIError for an error event, with no status, so it is retried like a dropped stream", () => {
    const decoder = new SseDecoder(parseChatChunk(new Headers({ "x-request-id": "req-7" })));
    const wire = event(chunk("a")) + event({ error: { message: "overloaded", type: "server_error", code: "overloaded" } });
    let thrown: unknown;
    try {
      decoder.push(bytes(wire));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(OpenAI.APIError);
    const apiError = thrown as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).to.equal(undefined);
    expect(apiError.code).to.equal("overloaded");
    expect(apiError.requestID).to.equal("req-7");
    expect(classifyFault(apiError)).to.deep.equal({ kind: "transient", status: undefined, retryAfterMs: undefined });
  });

  it("fails on a payload that is not JSON, as the SDK did", () => {
    expect(() => new SseDecoder(parseChatChunk()).push(bytes("data: {not json\n\n"))).to.throw(SyntaxError);
  });
});

describe("readSseFrames", () => {
  /** A response whose body delivers these reads, one per pull, and notes whether it was cancelled. */
  function responseOf(reads: string[]): { response: Response; cancelled: () => boolean } {
    let cancelled = false;
    const queue = reads.map(bytes);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = queue.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    return { response: new Response(body), cancelled: () => cancelled };
  }

  it("calls onFrame once per read, with an empty frame for a read that completed no event", async () => {
    const { response } = responseOf([event(chunk("a")) + event(chunk("b")), ": ping\n\n", event(chunk("c")).slice(0, 9), event(chunk("c")).slice(9)]);
    const seen: unknown[][] = [];
    await readSseFrames(response, (events) => void seen.push(events));
    expect(seen).to.deep.equal([[chunk("a"), chunk("b")], [], [], [chunk("c")]]);
  });

  it("waits for an asynchronous onFrame before reading on", async () => {
    const { response } = responseOf([event(chunk("a")), event(chunk("b"))]);
    const order: string[] = [];
    await readSseFrames(response, async (events) => {
      order.push(`start ${events.length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push("end");
    });
    expect(order).to.deep.equal(["start 1", "end", "start 1", "end"]);
  });

  it("cancels the body when onFrame fails, and passes the failure on", async () => {
    const { response, cancelled } = responseOf([event(chunk("a")), event(chunk("b")), event(chunk("c"))]);
    const failure = new Error("token handler down");
    let thrown: unknown;
    try {
      await readSseFrames(response, () => {
        throw failure;
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.equal(failure);
    expect(cancelled()).to.equal(true);
  });
});
