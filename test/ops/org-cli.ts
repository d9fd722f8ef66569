/** Runs `ops/cli/org.ts` as the operator would (`npm run org -- …`): a child process on the stack's DATABASE_URL and REDIS_URL. */
import { spawn } from "node:child_process";
import type { Stack } from "../support/stack";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runOrgCli(stack: Stack, args: string[], options: { env?: Record<string, string | undefined>; stdin?: string } = {}): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, ...stack.env, LOG_LEVEL: undefined, ...options.env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  const child = spawn(process.execPath, ["--import", "tsx", "ops/cli/org.ts", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
