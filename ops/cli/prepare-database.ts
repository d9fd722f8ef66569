/**
 * Migrates the database and seeds the demo organisation (idempotent). Used by the launcher,
 * the test harness and `npm run db:prepare`. Seed embeddings go through the same LLM client
 * as ingestion, so they live in the same vector space as the queries.
 */
import type { Config } from "../../lib/config";
import { createDb } from "../../db/knex";
import { migrateLatest } from "../../db/migrator";
import { seedDemoOrganisation, type DemoOrganisation } from "../../db/seeds/demo-org";
import { LlmClient } from "../../workers/llm/client";

export async function prepareDatabase(config: Config, { seed = true } = {}): Promise<{ migrations: string[]; demo: DemoOrganisation | null }> {
  const db = createDb({ url: config.database.DATABASE_URL!, poolMax: 4 });
  try {
    const migrations = await migrateLatest(db);
    if (!seed) return { migrations, demo: null };
    const llm = new LlmClient(config);
    const demo = await seedDemoOrganisation(db, { embedPassages: (texts) => llm.embed(texts, "passage") });
    return { migrations, demo };
  } finally {
    await db.destroy();
  }
}
