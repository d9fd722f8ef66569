/**
 * Preloaded (`node --import tsx --import …/exit-with-parent.ts`) into the launcher's Node
 * children: server, workers, offline model. The launcher holds each child's stdin; when the
 * launcher dies without stopping them (SIGKILL, a crash), the pipe reaches end-of-file and the
 * child stops itself with SIGTERM, so it shuts down the same orderly way as on `docker stop`
 * instead of holding its port for the next `npm start`.
 */
const stopWithParent = (): void => {
  process.kill(process.pid, "SIGTERM");
};
process.stdin.on("end", stopWithParent);
process.stdin.on("error", stopWithParent);
process.stdin.resume();
// Reading stdin must not be what keeps a finished process alive.
process.stdin.unref?.();
