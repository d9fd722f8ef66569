/**
 * The embedded Postgres: PGlite (WASM Postgres with the real pgvector extension) served over
 * the wire protocol, so the product's `pg`/Knex code runs unchanged. Runs as its own process
 * because PGlite executes queries on the thread that owns it.
 *
 *   node --import tsx launcher/embedded/postgres-server.ts --data-dir .data/pg --port 54329
 *
 * Prints `READY postgres://…` on stdout once it accepts connections.
 */
import { mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { applyProtocolLock } from "./pglite-protocol-lock";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    port: { type: "string", default: "54329" },
    host: { type: "string", default: "127.0.0.1" },
    "max-connections": { type: "string", default: "64" },
    "exit-with-parent": { type: "boolean", default: false },
  },
});

const dataDir = values["data-dir"];
if (dataDir) mkdirSync(dataDir, { recursive: true });

// No data dir means an in-memory database (tests); otherwise data survives restarts.
const db = await PGlite.create({ dataDir, extensions: { vector } });
await db.exec("CREATE EXTENSION IF NOT EXISTS vector");

const server = new PGLiteSocketServer({
  db,
  port: Number(values.port),
  host: values.host,
  // The multiplexer needs more than one slot; each process's Knex pool takes up to its max.
  maxConnections: Number(values["max-connections"]),
});
applyProtocolLock(server);
await server.start();
process.stdout.write(`READY postgres://postgres:postgres@${values.host}:${values.port}/postgres\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => undefined);
  await db.close().catch(() => undefined);
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (values["exit-with-parent"]) {
  // The launcher holds our stdin; when it dies without signalling, follow it.
  process.stdin.on("end", () => void stop());
  process.stdin.resume();
}
