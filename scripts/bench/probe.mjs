/**
 * Loaded into server and worker processes by the benchmark (`node --import tsx --import
 * ./scripts/bench/probe.mjs …`), never by the product. It measures where a process spends its
 * waiting time — event-loop delay, Postgres pool acquire waits and query round trips, Redis
 * command round trips. A SIGUSR2 ends the current measurement window: its figures are written to
 * `$BENCH_PROBE_DIR/<pid>.json` and a new window starts.
 *
 * With `BENCH_CPU_PROFILE=<dir>` it also records a V8 CPU profile of the whole process and
 * writes it to `<dir>/<role>-<pid>.cpuprofile` on exit (Node refuses `--cpu-prof` in NODE_OPTIONS).
 * Open it in Chrome DevTools, or summarise it with `node scripts/bench/profile-summary.mjs <file>`.
 *
 * Plain JavaScript: extraction worker threads inherit `--import` without tsx's loader.
 */
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";
import { Session } from "node:inspector";
import { pauseStampAges, takeStampAges, watchStampAges } from "./stamp-ages.mjs";

const require = createRequire(import.meta.url);
const dir = process.env.BENCH_PROBE_DIR;
/** A window that starts while this file exists watches no stamps (stamp-ages.mjs pauseStampAges). */
const stampPauseFile = process.env.BENCH_STAMP_AGES_PAUSE_FILE;
const CAP = 50_000;
/** Commands that wait on purpose (BullMQ's blocking pops, pub/sub) say nothing about Redis's speed. */
const WAITING = /^(b[lrz]pop|bzpopm|blmove|brpoplpush|bzmpop|blmpop|subscribe|psubscribe|ssubscribe)/i;

class Samples {
  values = [];
  count = 0;
  total = 0;
  add(ms) {
    this.count += 1;
    this.total += ms;
    // Keep the first CAP, then overwrite at random: percentiles stay representative.
    if (this.values.length < CAP) this.values.push(ms);
    else this.values[Math.floor(Math.random() * CAP)] = ms;
  }
}

let loop;
let windowStart = performance.now();
let poolWait = new Samples();
let query = new Samples();
let redis = new Samples();
/** Calls per SQL statement (its first 120 characters) and per Redis command name, in this window. */
let statements = new Map();
let commands = new Map();
const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
const statementOf = (arg) =>
  String(typeof arg === "string" ? arg : (arg?.text ?? "?"))
    .replace(/\s+/g, " ")
    .slice(0, 120);

const pct = (values, p) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const describe = (s) => ({ count: s.count, totalMs: s.total, p50: pct(s.values, 50), p99: pct(s.values, 99) });

function timed(started, promise, into) {
  promise.then(
    () => into().add(performance.now() - started),
    () => into().add(performance.now() - started),
  );
}

function install() {
  loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  if (process.env.BENCH_STAMP_AGES) watchStampAges();

  const tarn = require("tarn");
  const acquire = tarn.Pool.prototype.acquire;
  tarn.Pool.prototype.acquire = function (...args) {
    const started = performance.now();
    const pending = acquire.apply(this, args);
    timed(started, pending.promise, () => poolWait);
    return pending;
  };

  const pg = require("pg");
  const pgQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    const started = performance.now();
    bump(statements, statementOf(args[0]));
    const last = args[args.length - 1];
    if (typeof last === "function") {
      args[args.length - 1] = (...a) => {
        query.add(performance.now() - started);
        last(...a);
      };
      return pgQuery.apply(this, args);
    }
    const result = pgQuery.apply(this, args);
    if (result && typeof result.then === "function") timed(started, result, () => query);
    return result;
  };

  const { Redis } = require("ioredis");
  const sendCommand = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (command, ...rest) {
    const started = performance.now();
    const name = command?.name ?? "";
    bump(commands, name);
    const blocking = WAITING.test(name) || (/^xread/i.test(name) && command.args?.some((arg) => String(arg).toUpperCase() === "BLOCK"));
    if (command?.promise && !blocking) timed(started, command.promise, () => redis);
    return sendCommand.call(this, command, ...rest);
  };

  process.on("SIGUSR2", () => {
    write();
    if (stampPauseFile) pauseStampAges(existsSync(stampPauseFile));
    loop.disable();
    loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    windowStart = performance.now();
    poolWait = new Samples();
    query = new Samples();
    redis = new Samples();
    statements = new Map();
    commands = new Map();
    windowProfile?.();
  });
}

function write() {
  if (!dir) return;
  const report = {
    pid: process.pid,
    windowMs: performance.now() - windowStart,
    eventLoopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    poolWait: describe(poolWait),
    query: describe(query),
    redis: describe(redis),
    rssMb: process.memoryUsage().rss / 1024 / 1024,
    statements: Object.fromEntries(statements),
    commands: Object.fromEntries(commands),
    stampAges: takeStampAges(),
  };
  writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(report));
}

/** Set in windowed profiling: ends the window's profile (if one runs) and starts the next if asked. */
let windowProfile;

/**
 * The inspector's Profiler runs in this thread; posts to it complete synchronously, so exit can write.
 * With BENCH_CPU_PROFILE_WINDOWS=1 a profile covers only the probe windows that start while the
 * file `<dir>/record` exists (the bench creates it before the window it wants profiled), one file
 * per window, so start-up and the other phases stay out of it.
 */
function profileCpu(profileDir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 500 });
  const role = process.argv.find((arg) => /(server|workers)\/main\.ts$/.test(arg))?.match(/(server|workers)/)?.[1] ?? "process";
  if (process.env.BENCH_CPU_PROFILE_WINDOWS) {
    let recording = false;
    let window = 0;
    windowProfile = () => {
      window += 1;
      if (recording) {
        session.post("Profiler.stop", (error, result) => {
          if (!error) writeFileSync(join(profileDir, `${role}-${process.pid}-w${window}.cpuprofile`), JSON.stringify(result.profile));
        });
        recording = false;
      }
      if (existsSync(join(profileDir, "record"))) {
        session.post("Profiler.start");
        recording = true;
      }
    };
    return;
  }
  session.post("Profiler.start");
  process.once("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(join(profileDir, `${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

// Worker threads (extraction) inherit --import but have no signals of their own to answer.
if (isMainThread) {
  install();
  if (process.env.BENCH_CPU_PROFILE) profileCpu(process.env.BENCH_CPU_PROFILE);
}
