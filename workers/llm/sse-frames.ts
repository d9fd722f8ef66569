/**
 * The server-sent events of a streamed chat completion, decoded a body read at a time. The SDK's
 * own iterator costs several promises and a buffer copy per event and hands the events over one
 * by one; here one read of the body becomes one *frame*: every event that read completed, parsed,
 * so the client shows the text of a whole read at once (issue 35). The wire format is the one the
 * SDK reads (openai/core/streaming): events end at a blank line, `data:` lines join with `\n`,
 * `:` lines are comments, other fields are ignored, `[DONE]` ends the stream, an event the body
 * ends in the middle of is dropped (as the SSE specification says), and an event whose payload
 * carries an `error` becomes the SDK's `APIError`, so errors.ts classifies it unchanged.
 */
import type { IncomingMessage } from "node:http";
import OpenAI from "openai";
import { ConnectionClosed, nodeBodyOf } from "./http-transport";

const LF = 10;
const STREAMING = { stream: true } as const;

/** Decodes a body's bytes into parsed event payloads; pure, so it can be fed any split of the bytes. */
export class SseDecoder<Event> {
  private readonly text = new TextDecoder("utf-8");
  /** An unfinished line carried over to the next read. */
  private partial = "";
  /** The `data:` lines of the event being read. */
  private data: string[] = [];
  /** The last read ended on a CR: a LF that starts the next one belongs to that line ending. */
  private afterCr = false;
  /** `[DONE]` came: whatever follows is ignored. */
  done = false;

  /** @param parse turns one event's data into an event (or throws); `parseChatChunk` for a completion stream. */
  constructor(private readonly parse: (data: string) => Event) {}

  /** The events that these bytes complete, in order (none when they end mid-event). */
  push(bytes: Uint8Array): Event[] {
    const events: Event[] = [];
    if (this.done) return events;
    this.lines(this.partial + this.text.decode(bytes, STREAMING), events);
    return events;
  }

  private lines(text: string, events: Event[]): void {
    let start = 0;
    if (this.afterCr && text.length > 0) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    // Providers end lines with LF; a CR (alone or before LF) is looked for only when one is there.
    let cr = text.indexOf("\r", start);
    while (!this.done) {
      let lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        lf = cr;
        if (cr + 1 === text.length) {
          this.afterCr = true;
          next = cr + 1;
        } else {
          next = text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        }
      } else if (lf === -1) {
        break;
      } else {
        next = lf + 1;
      }
      this.line(text.slice(start, lf), events);
      start = next;
    }
    this.partial = this.done ? "" : start === 0 ? text : text.slice(start);
  }

  private line(line: string, events: Event[]): void {
    if (line.length === 0) {
      this.dispatch(events);
      return;
    }
    const colon = line.indexOf(":");
    if (colon === -1) {
      if (line === "data") this.data.push("");
      return;
    }
    // Comments (keep-alive pings) start with the colon; event:, id: and retry: mean nothing to a completion stream.
    if (colon !== 4 || !line.startsWith("data")) return;
    this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
  }

  private dispatch(events: Event[]): void {
    if (this.data.length === 0) return;
    const data = this.data.length === 1 ? this.data[0]! : this.data.join("\n");
    this.data = [];
    if (data.startsWith("[DONE]")) {
      this.done = true;
      return;
    }
    events.push(this.parse(data));
  }
}

/**
 * One event of a chat completion stream, read as the SDK's Stream reads it: JSON, and an `error`
 * inside it is thrown as the APIError the SDK threw (no status, so errors.ts retries it like a
 * dropped stream), carrying the response's headers.
 */
export function parseChatChunk<Chunk>(headers?: Headers): (data: string) => Chunk {
  return (data) => {
    const chunk = JSON.parse(data);
    if (chunk?.error) throw new OpenAI.APIError(undefined, chunk.error, undefined, headers);
    return chunk as Chunk;
  };
}

/**
 * Reads a streamed response to its end, calling `onFrame` once per body read with the events that
 * read completed (possibly none: a read is still a sign of life). A rejection of `onFrame`, of the
 * decoder or of the read ends the reading and cancels the body, so the connection is not left open.
 */
export async function readSseFrames<Event>(response: Response, onFrame: (events: Event[]) => Promise<void> | void): Promise<void> {
  if (!response.body) throw new OpenAI.OpenAIError("Attempted to iterate over a response with no body");
  const decoder = new SseDecoder(parseChatChunk<Event>(response.headers));
  const incoming = nodeBodyOf(response);
  if (incoming) return readNodeFrames(incoming, decoder, onFrame);
  const reader = response.body.getReader();
  let finished = false;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      const pending = onFrame(decoder.push(read.value));
      // Most frames are handled synchronously up to the caller's token handler: no promise for those.
      if (pending) await pending;
    }
    finished = true;
  } finally {
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * The same over the Node stream of a response from http-transport.ts: one `data` event per read and
 * no promise unless `onFrame` returns one (then the stream pauses until it settles). Ends when the
 * body does; a failure of `onFrame` or of the decoder, or a connection closed early (an abort
 * included), rejects and destroys the stream.
 */
function readNodeFrames<Event>(incoming: IncomingMessage, decoder: SseDecoder<Event>, onFrame: (events: Event[]) => Promise<void> | void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      incoming.destroy();
      reject(error);
    };
    // The HTTP parser hands over each chunk of the chunked body on its own, all within the socket
    // read that carried them: they are gathered and handled once that read is done, as one frame.
    let reads: Buffer[] = [];
    /** The newest frame `onFrame` has not finished with: the reading ends only after it (the body may end first). */
    let inFlight: Promise<void> | undefined;
    const handleRead = (): void => {
      const chunks = reads;
      reads = [];
      if (settled) return;
      let pending: Promise<void> | void;
      try {
        const events = chunks.length === 1 ? decoder.push(chunks[0]!) : chunks.flatMap((chunk) => decoder.push(chunk));
        pending = onFrame(events);
      } catch (error) {
        fail(error);
        return;
      }
      if (!pending) return;
      incoming.pause();
      const frame = pending.then(() => {
        if (inFlight === frame) inFlight = undefined;
        if (!settled) incoming.resume();
      }, fail);
      inFlight = frame;
    };
    incoming.on("data", (bytes: Buffer) => {
      if (reads.push(bytes) === 1) queueMicrotask(handleRead);
    });
    let ended = false;
    incoming.once("end", () => {
      ended = true;
      // After the last read's frame, which waits on the microtask queue, and after the caller is done with it.
      queueMicrotask(() => {
        const finish = (): void => {
          if (settled) return;
          settled = true;
          resolve();
        };
        if (inFlight) void inFlight.then(finish);
        else finish();
      });
    });
    incoming.once("error", fail);
    incoming.once("close", () => {
      if (!ended) fail(new ConnectionClosed());
    });
  });
}
