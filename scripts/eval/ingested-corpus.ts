/**
 * The corpus ingested once into its own organisation on a whole stack started in this process,
 * for the retrieval-only sweeps (tune-retrieval.ts, tune-grounding.ts): they run the searches
 * directly under many settings instead of a full `npm run eval` per setting.
 */
import type { Db } from "../../db/knex";
import { parseConfig, resetConfig, type Config } from "../../lib/config";
import type { WorkerDeps } from "../../workers/deps";
import { startServer } from "../../server/server";
import { startWorkers } from "../../workers/host";
import { prepareDatabase } from "../../ops/cli/prepare-database";
import { startInfrastructure, stopInfrastructure } from "../../test/harness/infrastructure";
import { createEvalOrganisation, dropEvalOrganisation } from "./organisation";
import { allCorpusFiles } from "./questions";
import { ingestCorpus } from "./run";
import { withTestTunables } from "../../lib/test-tunables";

export interface IngestedCorpus {
  config: Config;
  deps: WorkerDeps;
  db: Db;
  orgId: string;
  readerId: string;
  /** Corpus file → its document id. */
  documentIds: Map<string, string>;
  close(): Promise<void>;
}

export async function ingestedCorpus(): Promise<IngestedCorpus> {
  Object.assign(process.env, { LLM_MODEL: "offline-extractive" });
  const { llm } = await startInfrastructure();
  Object.assign(process.env, withTestTunables(process.env, { RATE_LIMIT_UPLOADS_PER_MINUTE: 100000 }));
  const { config, workers, server, db } = await startEvalStack();
  const org = await createEvalOrganisation(db, server.url, 1);
  const documents = await ingestCorpus(
    server.url,
    org.admins.map((admin) => admin.token),
    allCorpusFiles(),
  );
  const reader = await db("users").where({ org_id: org.orgId, role: "employee" }).first("id");
  return {
    config,
    deps: workers.deps,
    db,
    orgId: org.orgId,
    readerId: reader.id,
    documentIds: new Map(documents.map((d) => [d.file, d.documentId])),
    async close() {
      await dropEvalOrganisation(db, org.orgId);
      await server.close();
      await workers.close();
      await llm.close();
      await stopInfrastructure();
    },
  };
}

/** Server and workers in this process over the infrastructure already started, configured from the environment as it stands. */
export async function startEvalStack() {
  resetConfig();
  const config = parseConfig(process.env);
  await prepareDatabase(config);
  const workers = await startWorkers(config);
  const server = await startServer(config, { port: 0, host: "127.0.0.1" });
  return { config, workers, server, db: server.deps.db };
}
