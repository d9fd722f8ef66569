/**
 * Makes pglite-socket's multiplexer safe for pooled `pg` clients. PGlite is one backend
 * session; the socket server interleaves messages from different connections and only keeps
 * a connection's turn while a SQL transaction is open. node-postgres sends every
 * parameterised query as an extended-protocol unit (Parse/Bind/Describe/Execute … Sync), so
 * two pooled connections could interleave inside each other's units and read each other's
 * results (electric-sql/pglite#1046). This patch gives a connection the backend from its
 * first extended-protocol message until its Sync, and keeps the queue running after a failed
 * message instead of stalling it forever.
 */
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
  onData: (data: Uint8Array) => void;
}

interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  pinnedHandlerId?: number | null;
  db: {
    isInTransaction(): boolean;
    runExclusive<T>(fn: () => Promise<T>): Promise<T>;
    execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }): Promise<unknown>;
  };
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

const code = (letter: string): number => letter.charCodeAt(0);
/** Extended-protocol messages that leave state in the session until the next Sync. */
const OPENS_UNIT = new Set(["P", "B", "D", "E", "C", "H", "F"].map(code));
/** Messages after which the backend is back at ReadyForQuery. */
const CLOSES_UNIT = new Set(["S", "Q", "X"].map(code));

async function processQueue(this: QueryQueue): Promise<void> {
  if (this.processing || this.queue.length === 0) return;
  this.processing = true;
  try {
    while (this.queue.length > 0) {
      const owner = this.db.isInTransaction() && this.lastHandlerId ? this.lastHandlerId : (this.pinnedHandlerId ?? null);
      let item: QueuedMessage | undefined;
      if (owner !== null) {
        const index = this.queue.findIndex((queued) => queued.handlerId === owner);
        if (index === -1) break; // the owner's next message will restart the queue
        item = this.queue.splice(index, 1)[0];
      } else item = this.queue.shift();
      if (!item) break;
      const type = item.message[0] ?? 0;
      let bytes = 0;
      try {
        await this.db.runExclusive(() =>
          this.db.execProtocolRawStream(item!.message, {
            onRawData: (data) => {
              bytes += data.length;
              item!.onData(data);
            },
          }),
        );
      } catch (error) {
        // A debugging aid: the failure itself reaches the connection that sent the message.
        if (process.env.LOG_LEVEL === "debug" || process.env.LOG_LEVEL === "trace")
          process.stderr.write(`pglite message ${String.fromCharCode(type)} from #${item.handlerId} failed: ${String(error)}\n`);
        this.pinnedHandlerId = null;
        item.reject(error);
        continue;
      }
      this.lastHandlerId = item.handlerId;
      if (OPENS_UNIT.has(type)) this.pinnedHandlerId = item.handlerId;
      else if (CLOSES_UNIT.has(type)) this.pinnedHandlerId = null;
      item.resolve(bytes);
    }
  } finally {
    this.processing = false;
  }
}

export function applyProtocolLock(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  const prototype = Object.getPrototypeOf(queue) as QueryQueue;
  if ((prototype as { __protocolLock?: boolean }).__protocolLock) return;
  const clear = prototype.clearQueueForHandler;
  prototype.processQueue = processQueue;
  prototype.clearQueueForHandler = function (this: QueryQueue, handlerId: number) {
    clear.call(this, handlerId);
    if (this.pinnedHandlerId === handlerId) {
      this.pinnedHandlerId = null;
      void this.processQueue();
    }
  };
  (prototype as { __protocolLock?: boolean }).__protocolLock = true;
}
