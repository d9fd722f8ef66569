/**
 * `npm run sync -- <folder> --org <slug>`: mirrors a local or mounted folder into the
 * organisation's documents (ops/cli/folder-sync.ts has the rules) over the integration API, with
 * an integration key holding documents:write in SKILLNET_KEY. `--every 15m` runs a pass, waits,
 * and runs again until SIGTERM or SIGINT, which let the current pass finish. Exit codes: 0 done
 * (skipped files included), 1 a file or the pass failed, 2 a usage mistake.
 */
import { basename, resolve } from "node:path";
import { stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { countsOf, summaryLine, syncFolder } from "./folder-sync";
import { HttpSyncApi } from "./sync-client";

const USAGE = `Usage: npm run sync -- <folder> --org <slug> [--source <name>] [--url <server>] [--every 15m] [--concurrency 4] [--json]

  SKILLNET_KEY   an integration key of the organisation with the documents:write scope (required)
  --url          the server (default http://localhost:3000)
  --source       names this folder's documents (external ids "<source>:<path>"); default: the folder's name.
                 A sync only ever removes documents of its own source.
  --every        run again after each pass (30s, 15m, 1h) until SIGTERM
  --json         print each pass's result as one JSON line`;

class UsageError extends Error {}

const OPTIONS = {
  org: { type: "string" },
  source: { type: "string" },
  url: { type: "string" },
  every: { type: "string" },
  concurrency: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function intervalMs(text: string): number {
  const match = /^(\d+)\s*(s|m|h)?$/.exec(text.trim());
  if (!match || Number(match[1]) === 0) throw new UsageError(`--every takes a duration such as 30s, 15m or 1h, not "${text}"`);
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "s" | "m" | "h"];
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError("give exactly one folder");
  const folder = resolve(positionals[0]!);
  if (!(await stat(folder).catch(() => undefined))?.isDirectory()) throw new UsageError(`${folder} is not a folder`);
  const org = values.org?.trim();
  if (!org) throw new UsageError("--org is required");
  const key = process.env.SKILLNET_KEY?.trim();
  if (!key) throw new UsageError("SKILLNET_KEY must hold an integration key with the documents:write scope");
  const source = (values.source ?? basename(folder)).trim();
  if (!source || source.includes(":")) throw new UsageError("--source must be a non-empty name without ':'");
  const concurrency = Number(values.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new UsageError("--concurrency must be 1 to 32");
  const every = values.every ? intervalMs(values.every) : undefined;
  const url = (values.url ?? "http://localhost:3000").replace(/\/+$/, "");

  const api = new HttpSyncApi(url, key);
  const { organisation } = await api.target();
  if (organisation.slug !== org && organisation.id !== org) {
    process.stderr.write(`This key belongs to "${organisation.slug}", not "${org}": nothing was synced.\n`);
    return 1;
  }

  let stopping = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopping = true;
    wake?.();
  };
  if (every) {
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  }
  let code = 0;
  do {
    const started = performance.now();
    const report = await syncFolder(api, { folder, source, concurrency, onLine: values.json ? undefined : (line) => process.stdout.write(`${line}\n`) });
    const ms = Math.round(performance.now() - started);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ org: organisation.slug, source, folder, ms, counts: countsOf(report), ...report })}\n`);
    } else {
      process.stdout.write(`${folder} → ${organisation.slug} (source "${source}"): ${summaryLine(report)} in ${(ms / 1000).toFixed(1)} s\n`);
    }
    code = report.failed.length > 0 ? 1 : 0;
    if (every && !stopping) await new Promise<void>((done) => ((wake = done), setTimeout(done, every)));
  } while (every && !stopping);
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`sync failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
