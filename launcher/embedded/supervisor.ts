/**
 * Keeps one launcher child (server, worker, offline model) running: when it exits without
 * being asked to, it is started again after a back-off (1 s, doubling up to 30 s), and each
 * restart is logged. A child that keeps dying soon after it starts is not restarted for ever:
 * after `maxFastCrashes` such exits in a row the supervisor gives up and says why, so a broken
 * configuration does not loop silently.
 */
import type { ManagedChild } from "./child-process";

export interface SupervisorOptions {
  name: string;
  /** Spawns the child and resolves once it is ready (spawnUntilReady). */
  start: () => Promise<ManagedChild>;
  /** Crashes in a row, each within `fastCrashMs` of becoming ready, before giving up. */
  maxFastCrashes: number;
  fastCrashMs?: number;
  log: (line: string) => void;
  /** Called after every (re)start, e.g. to record the new pid. */
  onStarted?: (child: ManagedChild) => void;
  /** Called once, when the supervisor stops restarting. */
  onGiveUp: (reason: string) => void;
  /**
   * True once the launcher as a whole is stopping. A terminal's Ctrl-C reaches every child of
   * the process group at once, before the launcher gets round to stopping each in order.
   */
  shuttingDown?: () => boolean;
}

const firstBackoffMs = 1_000;
const maxBackoffMs = 30_000;

export class Supervisor {
  private current: ManagedChild | undefined;
  private stopping = false;
  private fastCrashes = 0;
  private restarts = 0;
  private wakeFromBackoff: (() => void) | undefined;

  constructor(private readonly options: SupervisorOptions) {}

  get name(): string {
    return this.options.name;
  }

  /** The running child's pid (changes on every restart). */
  get pid(): number | undefined {
    return this.current?.process.pid;
  }

  /** Starts the child the first time; a failure here is the caller's (start-up fails). */
  async start(): Promise<void> {
    this.adopt(await this.options.start());
  }

  async stop(graceMs?: number): Promise<void> {
    this.stopping = true;
    this.wakeFromBackoff?.();
    await this.current?.stop(graceMs);
  }

  private adopt(child: ManagedChild): void {
    this.current = child;
    this.options.onStarted?.(child);
    const readyAt = Date.now();
    child.process.once("exit", (code, signal) => {
      if (this.stopping || this.options.shuttingDown?.()) return;
      const fast = Date.now() - readyAt < (this.options.fastCrashMs ?? 60_000);
      this.fastCrashes = fast ? this.fastCrashes + 1 : 1;
      void this.restart(`exited (code ${code}, signal ${signal})`);
    });
  }

  private async restart(why: string): Promise<void> {
    const { name, maxFastCrashes, log } = this.options;
    while (!this.stopping) {
      if (this.fastCrashes >= maxFastCrashes) {
        this.stopping = true;
        this.options.onGiveUp(
          `${name} ${why}; it crashed ${this.fastCrashes} times in a row within a minute of starting, so it is not restarted again. Its output above says why; fix that and run npm start again.`,
        );
        return;
      }
      const delay = Math.min(maxBackoffMs, firstBackoffMs * 2 ** Math.max(0, this.fastCrashes - 1));
      this.restarts += 1;
      log(`✗ ${name} ${why}; restarting it in ${delay / 1000} s (restart ${this.restarts}, crash ${this.fastCrashes} of ${maxFastCrashes} in a row)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeFromBackoff = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeFromBackoff = undefined;
      if (this.stopping || this.options.shuttingDown?.()) return;
      try {
        this.adopt(await this.options.start());
        // Asked to stop while it was starting: stop what just came up.
        if (this.stopping) return void (await this.current?.stop());
        log(`› ${name} restarted (pid ${this.pid})`);
        return;
      } catch (error) {
        this.fastCrashes += 1;
        why = `failed to start again: ${(error as Error).message.split("\n")[0]}`;
      }
    }
  }
}
