/**
 * Runs one program (the embedded redis-server or PostgreSQL, which have no `--exit-with-parent`
 * of their own) and stops it when the launcher dies: the launcher holds our stdin, so its death,
 * however abrupt, ends the pipe. SIGTERM/SIGINT are passed on; we exit with the program's status.
 * `--stop-signal=SIGINT` sends that instead of SIGTERM (PostgreSQL's fast shutdown; its SIGTERM
 * waits for every client to leave).
 *
 *   node --import tsx launcher/embedded/watchdog.ts [--stop-signal=SIGINT] -- /usr/bin/redis-server --port 6390 …
 */
import { spawn } from "node:child_process";

const separator = process.argv.indexOf("--");
const [command, ...args] = process.argv.slice(separator >= 0 ? separator + 1 : 2);
if (!command) {
  process.stderr.write("usage: watchdog.ts [--stop-signal=SIG] -- <command> [args…]\n");
  process.exit(2);
}
const stopSignal = (process.argv.find((arg) => arg.startsWith("--stop-signal="))?.slice(14) ?? "SIGTERM") as NodeJS.Signals;

const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
process.on("SIGTERM", forward(stopSignal));
process.on("SIGINT", forward("SIGINT"));
child.once("error", (error) => {
  process.stderr.write(`watchdog: could not start ${command}: ${error.message}\n`);
  process.exit(1);
});
child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

const parentGone = (): void => {
  child.kill(stopSignal);
  // A program that ignores SIGTERM still goes, well before anyone starts a new launcher.
  setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
};
process.stdin.on("end", parentGone);
process.stdin.on("error", parentGone);
process.stdin.resume();
