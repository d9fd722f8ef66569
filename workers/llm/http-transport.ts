/**
 * The fetch the model clients send their requests with: `node:http` / `node:https` on keep-alive
 * agents, behind the fetch signature the OpenAI SDK takes, so the SDK still builds every request,
 * retries and raises its errors. What changes is the streamed body: Node's fetch hands a body over
 * through web streams, about 20–30 µs of CPU and a dozen promises per read, the largest per-token
 * cost of a worker streaming hundreds of answers (bench/optimisations.md, section 16). Here the
 * response also keeps its Node stream (`nodeBodyOf`), which the SSE reader (sse-frames.ts) reads
 * with plain `data` events; the web body exists for the SDK's own reads (JSON replies, error
 * bodies) and is bridged only when something reads it.
 *
 * Unlike fetch it follows no redirects and asks for no compression: a model endpoint answers
 * where it is configured, and token streams do not compress.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";

const agents = {
  "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
  "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
};

/** Statuses whose response may carry no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

const nodeBodies = new WeakMap<Response, IncomingMessage>();

/** The connection closed before the body ended (a reset, or the request aborted): errors.ts counts it a transient fault, like fetch's `terminated`. */
export class ConnectionClosed extends Error {
  constructor() {
    super("the connection closed before the response ended");
    this.name = "ConnectionClosed";
  }
}

/** The Node stream behind a response this transport made, unread; undefined for any other response. */
export function nodeBodyOf(response: Response): IncomingMessage | undefined {
  return nodeBodies.get(response);
}

type FetchInput = Parameters<typeof fetch>[0];

/** `fetch` over node:http for string and byte bodies; anything else (a form, a stream) goes to the platform's fetch. */
export async function modelFetch(input: FetchInput, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  const body = init.body;
  const plainBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (!plainBody || (url.protocol !== "http:" && url.protocol !== "https:")) return fetch(input, init);
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    if (name !== "accept-encoding") headers[name] = value;
  });
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const request = client.request(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"], signal });
    // `on`, not `once`: an error after the response (a reset mid-body) must not find no listener and crash the process.
    request.on("error", reject);
    request.once("response", (incoming) => {
      // Whoever reads the body sees its errors (the SSE reader, the bridge); an unread body that errors must not crash the process.
      incoming.on("error", () => undefined);
      const status = incoming.statusCode ?? 0;
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) responseHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      const response = new Response(NULL_BODY.has(status) ? null : bridge(incoming), {
        status,
        statusText: incoming.statusMessage ?? "",
        headers: responseHeaders,
      });
      if (!NULL_BODY.has(status)) nodeBodies.set(response, incoming);
      resolve(response);
    });
    request.end(body ?? undefined);
  });
}

/** A web stream over the Node one that attaches to it only when first read, so a reader of the Node stream has it alone. */
function bridge(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let attached = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) return;
        attached = true;
        let settled = false;
        const settle = (end: () => void) => {
          if (settled) return;
          settled = true;
          end();
        };
        incoming.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
        incoming.once("end", () => settle(() => controller.close()));
        incoming.once("error", (error) => settle(() => controller.error(error)));
        incoming.once("close", () => settle(() => controller.error(new ConnectionClosed())));
      },
      cancel() {
        incoming.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
