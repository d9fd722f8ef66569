/**
 * What can end a model stream early, and the watch that notices: the caller cancelled it (a
 * cancelled turn), the model went silent (LLM_STREAM_IDLE_TIMEOUT_MS), or the caller's own token
 * handler failed. The client (client.ts) tells these apart by class, never by message.
 */
/** Wraps an error thrown by the caller's `onToken`, so it is not mistaken for a provider fault. */
export class CallbackFailure extends Error {
  constructor(override readonly cause: unknown) {
    super("token handler failed");
  }
}

/** The caller's signal aborted the stream: not a model fault, never retried, no cooldown. */
export class StreamCancelled extends Error {
  constructor(readonly partialContent: string) {
    super("the model stream was cancelled");
    this.name = "StreamCancelled";
  }
}

/** The model sent nothing for LLM_STREAM_IDLE_TIMEOUT_MS: handled like a dropped connection. */
class StreamWentSilent extends Error {
  constructor(idleMs: number) {
    super(`the model stream sent nothing for ${idleMs} ms`);
    this.name = "StreamWentSilent";
  }
}

/**
 * Aborts a stream that goes quiet. The SDK's timeout ends when the response headers arrive; a
 * server that then stops sending bytes would hold the turn (and a worker slot) for ever. The
 * caller's own signal (a cancelled turn) aborts the same request.
 */
export class IdleWatch {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  silent = false;

  constructor(
    private readonly idleMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  private readonly onCallerAbort = (): void => this.controller.abort();

  /** A sign of life (every body read): re-arms the one timer rather than making a new one per read. */
  touch(): void {
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.silent = true;
      this.controller.abort();
    }, this.idleMs);
  }

  /** Why the stream ended early, when it was us (or the caller) that ended it. */
  reason(partialContent: string): Error | undefined {
    if (this.callerSignal?.aborted) return new StreamCancelled(partialContent);
    if (this.silent) return new StreamWentSilent(this.idleMs);
    return undefined;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}
