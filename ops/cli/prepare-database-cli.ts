/** `npm run db:prepare`: migrate and seed the database named by DATABASE_URL (used by docker compose). */
import { ConfigError, getConfig, requireSetting } from "../../lib/config";
import { componentLogger } from "../../lib/logger";
import { prepareDatabase } from "./prepare-database";

const log = componentLogger("db:prepare");
try {
  const config = getConfig();
  requireSetting(config.database, "DATABASE_URL");
  const { migrations, demo } = await prepareDatabase(config, { seed: process.env.SEED_DEMO !== "false" });
  log.info({ migrations, demoOrg: demo?.orgId ?? null }, "database ready");
  process.exit(0);
} catch (error) {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  log.fatal({ err: error }, "database preparation failed");
  process.exit(1);
}
