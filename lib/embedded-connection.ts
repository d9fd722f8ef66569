/**
 * How the operator's command-line tools find the product `npm start` is running on embedded
 * parts: the launcher writes the connection settings it chose (the embedded Postgres and Redis
 * URLs, the operator organisation, the key that seals stored secrets and the networks outbound
 * requests may reach, so `idp set --metadata-url` fetches what the server itself could) to
 * `DATA_DIR/run/embedded.env`, readable by its owner only, and removes nothing else's. A tool
 * started without DATABASE_URL reads it, so `npm run org -- …` works beside `npm start` with
 * nothing exported by hand. Settings already in the environment always win.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const FILE = join("run", "embedded.env");
const KEYS = ["DATABASE_URL", "REDIS_URL", "OPS_ORG", "SECRETS_KEY", "OUTBOUND_ALLOWED_CIDRS"] as const;

export function writeEmbeddedConnection(dataDir: string, env: Record<string, string | undefined>): void {
  const lines = KEYS.filter((key) => env[key]).map((key) => `${key}=${JSON.stringify(env[key])}`);
  writeFileSync(join(dataDir, FILE), `${lines.join("\n")}\n`, { mode: 0o600 });
}

/**
 * Fills the unset connection settings of `env` from the running embedded product's file, when
 * DATABASE_URL is unset and the file exists. Returns the file it read, or undefined.
 */
export function useEmbeddedConnection(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DATABASE_URL) return undefined;
  const file = resolve(env.DATA_DIR ?? ".data", FILE);
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const at = line.indexOf("=");
    if (at < 0) continue;
    const key = line.slice(0, at);
    if ((KEYS as readonly string[]).includes(key) && !env[key]) env[key] = JSON.parse(line.slice(at + 1)) as string;
  }
  return file;
}
