// An extraction thread that dies while it starts, as every thread did under `npm start` when the
// worker's `--import …/exit-with-parent.ts` preload reached the threads (issue 25).
throw new Error("this thread cannot start");
