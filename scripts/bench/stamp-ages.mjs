/**
 * Per-hop token ages for the token-lag benchmark, never loaded by the product. The bench model
 * stamps every token with the wall clock at the moment it writes it (` @<epoch ms>`); this module
 * watches the bytes a process reads from and writes to its TCP sockets and, wherever a stamp
 * passes a hop it recognises, records how old the token is at that point:
 *
 * - `model → worker read`: a model stream chunk read by the worker (`chat.completion.chunk`);
 * - `worker → Redis write`: an append script call written by the worker (it names the turn-event channel);
 * - `Redis → server read`: a turn-event message read by a server's subscriber (same channel name);
 * - `server → socket write`: a Socket.IO `token` packet written by a server;
 * - `socket → client read`: the same packet read by a bench client (the bench process).
 *
 * The differences between neighbouring hops are where a token waits. Bytes are matched as they
 * come off or go onto the socket (net.Socket's push and write), so the figures include the time
 * a message waits for its process's event loop before being parsed, and exclude none of it.
 * A stamp split across two reads is missed (rare; it only thins the sample).
 *
 * Plain JavaScript, like probe.mjs that loads it.
 */
import net from "node:net";

const STAMP = / @(\d{13}\.\d\d)/g;
const CAP = 50_000;
const TURN_EVENTS = "skillnet:turn-events";

class Ages {
  values = [];
  count = 0;
  add(ms) {
    this.count += 1;
    if (this.values.length < CAP) this.values.push(ms);
    else this.values[Math.floor(Math.random() * CAP)] = ms;
  }
}

const pct = (sorted, p) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);

/** Hop name → ages seen in this window. */
let ages = new Map();

/** While true the sockets' bytes are not looked at (pauseStampAges). */
let paused = false;

/**
 * Stops (true) or resumes looking at the bytes. Looking costs CPU per token in every process it
 * watches (a scan of each read and write for the stamp, several µs a token): the rounds that measure
 * what the product's CPU per token is pause it, so that cost is not counted as the product's.
 */
export function pauseStampAges(pause) {
  paused = pause;
}

function record(hop, text) {
  const now = performance.timeOrigin + performance.now();
  let into = ages.get(hop);
  if (!into) ages.set(hop, (into = new Ages()));
  for (const match of text.matchAll(STAMP)) into.add(now - Number(match[1]));
}

/** The chunk as text, or "" when it carries no stamp (checked on the bytes first: most traffic has none). */
function textOf(chunk) {
  if (typeof chunk === "string") return chunk.includes(" @") ? chunk : "";
  if (!(chunk instanceof Uint8Array)) return "";
  const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return bytes.indexOf(" @") < 0 ? "" : bytes.toString("latin1");
}

/**
 * The hop of a chunk read, or null; a chunk read without its marker (the rest of a long message)
 * counts for the socket's last hop. Not so for writes: they are whole commands, and a socket that
 * wrote an append also writes other commands (a finished job's answer carries every stamp).
 */
function readHop(text) {
  if (text.includes("chat.completion.chunk")) return "model → worker read";
  if (text.includes(TURN_EVENTS)) return "Redis → server read";
  if (text.includes('["token"')) return "socket → client read";
  return null;
}

function writeHop(text) {
  if (text.includes(TURN_EVENTS)) return "worker → Redis write";
  if (text.includes('["token"')) return "server → socket write";
  return null;
}

function seen(socket, text, hopOf, sticky) {
  if (!text) return;
  const hop = hopOf(text) ?? (sticky ? socket.__lastReadHop : null);
  if (!hop) return;
  if (sticky) socket.__lastReadHop = hop;
  record(hop, text);
}

/** Starts watching this process's sockets (once). */
export function watchStampAges() {
  if (net.Socket.prototype.__stampAges) return;
  net.Socket.prototype.__stampAges = true;
  const push = net.Socket.prototype.push;
  net.Socket.prototype.push = function (chunk, ...rest) {
    if (chunk && !paused) seen(this, textOf(chunk), readHop, true);
    return push.call(this, chunk, ...rest);
  };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (chunk && !paused) seen(this, textOf(chunk), writeHop, false);
    return write.call(this, chunk, ...rest);
  };
}

/** The window's ages per hop ({count, p50, p90, p99, max} in ms), and a new window. */
export function takeStampAges() {
  const report = {};
  for (const [hop, into] of ages) {
    if (into.count === 0) continue;
    const sorted = [...into.values].sort((a, b) => a - b);
    report[hop] = { count: into.count, p50: pct(sorted, 50), p90: pct(sorted, 90), p99: pct(sorted, 99), max: sorted[sorted.length - 1] };
  }
  ages = new Map();
  return report;
}
