/**
 * Schema and demo-seed tests against a real PostgreSQL (PGlite with pgvector) reached over the
 * wire protocol, so Knex and `pg` run exactly as in production rather than against a fake.
 */
import { createHash } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { expect } from "chai";
import { resetConfig } from "../../lib/config";
import { createDb, toVectorLiteral, type Db } from "../../db/knex";
import { migrateLatest, migrations, rollbackAll } from "../../db/migrator";
import * as knowledge from "../../db/migrations/20261129000002_knowledge";
import { DEMO_IDS, seedDemoOrganisation } from "../../db/seeds/demo-org";

const DIMENSIONS = 384;
const APP_TABLES = [
  "organizations",
  "users",
  "skill_categories",
  "skills",
  "user_skills",
  "documents",
  "courses",
  "modules",
  "lessons",
  "enrollments",
  "exercises",
  "exercise_attempts",
  "spaced_repetition",
  "document_chunks",
  "chat_sessions",
  "chat_messages",
  "llm_usage_log",
  "admin_actions",
  "admin_action_items",
  "audit_log",
  "document_files",
  "document_chunk_drafts",
  "ai_allowances",
  "ai_usage_months",
  "ai_credit_grants",
  "chat_feedback",
  "question_vectors",
  "identity_providers",
  "identity_links",
  "refresh_tokens",
  "scim_tokens",
  "scim_groups",
  "scim_group_members",
  "integration_keys",
  "org_retention",
  "catalog_imports",
  "person_exports",
  "person_erasures",
  "organisation_domains",
  "org_policies",
  "chat_attachments",
  "chat_attachment_chunks",
];
/**
 * Beside the tenant tables above: the record of organisation deletions, which names the organisation it removed in `target_org_id` and outlives it;
 * and a bulk import's file, records and problems, read only through their import (`catalog_imports`, a tenant table) and deleted with it.
 */
const OTHER_TABLES = ["org_deletions", "catalog_import_parts", "catalog_import_lines", "catalog_import_problems"];

interface Served {
  pg: PGlite;
  server: PGLiteSocketServer;
  db: Db;
}

/** PGlite runs one query at a time; the socket server queues connections, so a pool is safe. */
async function serve(pg: PGlite): Promise<Served> {
  const server = new PGLiteSocketServer({ db: pg, host: "127.0.0.1", port: 0, maxConnections: 16 });
  await server.start();
  const db = createDb({ url: `postgres://postgres:postgres@${server.getServerConn()}/postgres`, poolMax: 4 });
  return { pg, server, db };
}

async function shutdown(served: Served | undefined): Promise<void> {
  if (!served) return;
  await served.db.destroy();
  await served.server.stop();
  await served.pg.close();
}

/** Deterministic unit vectors: equal texts embed equally, different texts almost never do. */
function fakeEmbedding(text: string): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < DIMENSIONS; block += 1) {
    const digest = createHash("sha256").update(`${block}:${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && values.length < DIMENSIONS; i += 4) values.push(digest.readInt32BE(i) / 2 ** 31);
  }
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
}

function axis(...weights: number[]): number[] {
  return Array.from({ length: DIMENSIONS }, (_, i) => weights[i] ?? 0);
}

async function publicTables(db: Db): Promise<string[]> {
  const rows = await db("information_schema.tables").where({ table_schema: "public" }).select("table_name");
  return rows.map((row: { table_name: string }) => row.table_name).filter((name) => !name.startsWith("knex_"));
}

async function tableCounts(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of APP_TABLES) {
    const [row] = await db(table).count<{ count: string }[]>({ count: "*" });
    counts[table] = Number(row!.count);
  }
  return counts;
}

async function insertOrgWithUser(db: Db, slug: string): Promise<{ orgId: string; userId: string }> {
  const [org] = await db("organizations").insert({ name: slug, slug }).returning("id");
  const [user] = await db("users")
    .insert({ org_id: org.id, email: `${slug}@test.local`, name: slug, role: "employee" })
    .returning("id");
  return { orgId: org.id, userId: user.id };
}

describe("database schema and demo seed (PGlite + pgvector over the wire)", function () {
  let served: Served | undefined;
  let db: Db;
  const savedDimensions = process.env.EMBEDDING_DIMENSIONS;

  before(async function () {
    process.env.EMBEDDING_DIMENSIONS = String(DIMENSIONS);
    resetConfig();
    served = await serve(new PGlite({ extensions: { vector } }));
    db = served.db;
  });

  after(async function () {
    await shutdown(served);
    if (savedDimensions === undefined) delete process.env.EMBEDDING_DIMENSIONS;
    else process.env.EMBEDDING_DIMENSIONS = savedDimensions;
    resetConfig();
  });

  it("migrates from zero to latest and reports nothing pending afterwards", async function () {
    expect(await publicTables(db)).to.deep.equal([]);
    const applied = await migrateLatest(db);
    expect(applied).to.deep.equal(migrations.map((m) => m.name));
    // In the order their timestamps say (SAML's columns before several providers per organisation, …).
    expect(applied).to.deep.equal([...applied].sort());
    expect(await publicTables(db)).to.have.members([...APP_TABLES, ...OTHER_TABLES]);
    const providerColumns = await db("information_schema.columns").where({ table_schema: "public", table_name: "identity_providers" }).pluck("column_name");
    expect(providerColumns).to.include.members(["protocol", "saml_config", "sp_private_key_encrypted", "sp_certificate"]);
    expect(await migrateLatest(db)).to.deep.equal([]);
  });

  it("gives every tenant table an indexed org_id", async function () {
    const indexes = await db("pg_indexes").where({ schemaname: "public" }).select("tablename", "indexdef");
    for (const table of APP_TABLES.filter((t) => t !== "organizations")) {
      const hasOrgIndex = indexes.some((ix: { tablename: string; indexdef: string }) => ix.tablename === table && /\(org_id[,)]/.test(ix.indexdef));
      expect(hasOrgIndex, `${table} has an index starting with org_id`).to.equal(true);
    }
  });

  it("creates document_chunks.embedding as vector(384), with no HNSW graph shared by every organisation", async function () {
    const { rows } = await db.raw(
      `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = 'document_chunks'::regclass AND attname = 'embedding'`,
    );
    expect(rows[0].type).to.equal(`vector(${DIMENSIONS})`);
    // Each large organisation gets an index of its own rows (db/queries/org-vector-indexes.ts); a fresh schema has none.
    const hnsw = await db("pg_indexes").where({ tablename: "document_chunks" }).andWhereILike("indexdef", "%using hnsw%");
    expect(hnsw).to.have.length(0);
    const gin = await db("pg_indexes").where({ tablename: "document_chunks" }).andWhereILike("indexdef", "%using gin%(tsv)%");
    expect(gin).to.have.length(1);
  });

  it("generates tsv for keyword search and orders by cosine distance", async function () {
    const { orgId, userId } = await insertOrgWithUser(db, "vector-test");
    const [doc] = await db("documents").insert({ org_id: orgId, uploaded_by: userId, title: "T", filename: "t.txt", content_hash: "abc" }).returning("id");
    const rows = [
      { content: "Forklift certification renewal every three years", embedding: axis(1) },
      { content: "Refunds go back to the original card", embedding: axis(0.7, 0.7) },
      { content: "Evacuation meeting point north car park", embedding: axis(0, 1) },
    ];
    for (const [position, row] of rows.entries()) {
      await db("document_chunks").insert({
        org_id: orgId,
        document_id: doc.id,
        position,
        content: row.content,
        embedding: db.raw("?::vector", [toVectorLiteral(row.embedding)]),
      });
    }
    const keyword = await db("document_chunks")
      .where({ document_id: doc.id })
      .whereRaw("tsv @@ plainto_tsquery('simple', ?)", ["forklift certification"])
      .select("position");
    expect(keyword.map((r: { position: number }) => r.position)).to.deep.equal([0]);

    const nearest = await db("document_chunks")
      .where({ document_id: doc.id })
      .orderByRaw("embedding <=> ?::vector", [toVectorLiteral(axis(1, 0.1))])
      .select("position");
    expect(nearest.map((r: { position: number }) => r.position)).to.deep.equal([0, 1, 2]);
  });

  it("rejects a second assistant message for the same turn", async function () {
    const { orgId, userId } = await insertOrgWithUser(db, "chat-test");
    const [session] = await db("chat_sessions").insert({ org_id: orgId, user_id: userId, agent_type: "tutor" }).returning("id");
    const turnId = "11111111-1111-4111-8111-111111111111";
    const message = (role: string, content: string) => ({ org_id: orgId, session_id: session.id, turn_id: turnId, role, content });
    await db("chat_messages").insert([message("user", "Hi"), message("assistant", "Hello")]);
    let failure: unknown;
    await db("chat_messages")
      .insert(message("assistant", "Hello again"))
      .catch((error: unknown) => (failure = error));
    expect(failure, "duplicate (turn_id, role) must fail").to.be.instanceOf(Error);
    expect((failure as { code?: string }).code).to.equal("23505");
  });

  describe("demo organisation", function () {
    let embedCalls: string[][] = [];
    const embedPassages = async (texts: string[]) => {
      embedCalls.push(texts);
      return texts.map(fakeEmbedding);
    };

    it("is idempotent: a second run leaves the same rows and ids and re-embeds nothing", async function () {
      const first = await seedDemoOrganisation(db, { embedPassages });
      expect(embedCalls.flat()).to.have.length(11);
      const countsAfterFirst = await tableCounts(db);
      embedCalls = [];
      const second = await seedDemoOrganisation(db, { embedPassages });
      expect(second).to.deep.equal(first);
      expect(await tableCounts(db)).to.deep.equal(countsAfterFirst);
      expect(embedCalls.flat()).to.have.length(0);
      expect(first.orgId).to.equal(DEMO_IDS.orgId);
      expect(first.employeeId).to.equal(DEMO_IDS.employeeId);
      expect(first.courseIds).to.deep.equal(DEMO_IDS.courseIds);
    });

    it("contains the facts the chat agents are demonstrated with", async function () {
      const org = await db("organizations").where({ slug: "acme" }).first();
      expect(org.name).to.equal("Acme Retail");
      const admin = await db("users").where({ email: "admin@example.com" }).first();
      expect(admin).to.include({ role: "admin", name: "Ana Admin", org_id: org.id, locale: "es" });
      const employee = await db("users").where({ email: "employee@example.com" }).first();
      expect(employee).to.include({ role: "employee", name: "Eli Employee", department: "Customer Service", locale: "en" });
      const employees = await db("users").where({ org_id: org.id, role: "employee" }).select("department", "locale");
      expect(employees.length).to.be.at.least(9);
      expect(new Set(employees.map((e: { department: string }) => e.department))).to.include.members(["Sales", "Customer Service", "Warehouse", "Finance"]);

      const courses = await db("courses").where({ org_id: org.id }).select("id", "title");
      expect(courses.length).to.be.at.least(3);
      for (const course of courses) {
        const modules = await db("modules").where({ course_id: course.id }).whereNotNull("summary");
        expect(modules.length, course.title).to.be.at.least(2);
      }

      const manual = await db("documents").where({ org_id: org.id, title: "Returns Policy Manual" }).first();
      expect(manual.status).to.equal("COMPLETED");
      const chunks = await db("document_chunks").where({ document_id: manual.id }).orderBy("position");
      expect(chunks.length).to.be.at.least(5);
      expect(chunks.every((c: { embedding: string | null }) => c.embedding !== null)).to.equal(true);
      expect(chunks[0].metadata).to.include.keys("heading", "page_start", "page_end", "position");
      expect(manual.chunk_count).to.equal(chunks.length);

      const spanish = await db("documents").where({ org_id: org.id, title: "Manual de Seguridad en Almacén" }).first();
      expect(spanish.full_text).to.include("25 kg").and.include("aparcamiento norte");
      const spanishChunks = await db("document_chunks").where({ document_id: spanish.id }).count({ count: "*" });
      expect(Number(spanishChunks[0]?.count)).to.equal(0);

      const zebra = await db("document_chunks").whereRaw("tsv @@ plainto_tsquery('simple', ?)", ["ZEBRA-7"]).select("document_id");
      expect(zebra.map((z: { document_id: string }) => z.document_id)).to.deep.equal([DEMO_IDS.documentIds.servicePlaybook]);

      const enrollments = await db("enrollments as e")
        .join("courses as c", "c.id", "e.course_id")
        .where("e.user_id", employee.id)
        .select("c.title", "e.status", "e.score", "e.deadline");
      const returns = enrollments.find((e: { title: string }) => e.title === "Returns Essentials");
      expect(returns).to.include({ status: "in_progress", score: "0.800" });
      expect(enrollments.map((e: { title: string }) => e.title)).to.include("Seguridad en el Almacén");
    });

    it("supports the tutor's progress query: module 1 passed, reviews due", async function () {
      const { rows } = await db.raw(
        `SELECT c.title, COUNT(DISTINCT m.id)::int AS total_modules,
                COUNT(DISTINCT CASE WHEN EXISTS (
                  SELECT 1 FROM exercise_attempts ea JOIN exercises ex ON ex.id = ea.exercise_id
                  JOIN lessons l ON l.id = ex.lesson_id
                  WHERE l.module_id = m.id AND ea.user_id = :userId AND ea.passed = true
                ) THEN m.id END)::int AS completed_modules
         FROM enrollments e JOIN courses c ON c.id = e.course_id LEFT JOIN modules m ON m.course_id = c.id
         WHERE e.user_id = :userId GROUP BY c.title ORDER BY c.title`,
        { userId: DEMO_IDS.employeeId },
      );
      expect(rows.find((r: { title: string }) => r.title === "Returns Essentials")).to.include({ total_modules: 3, completed_modules: 1 });
      const due = await db("spaced_repetition").where({ user_id: DEMO_IDS.employeeId }).andWhere("next_review_at", "<=", db.fn.now()).count({ due: "*" });
      expect(Number(due[0]?.due)).to.be.at.least(1);
    });
  });

  // Mocha runs a suite's own tests before its child suites; a child suite keeps this one last.
  describe("rollback", function () {
    it("rolls back to zero with data present, dropping every table, and migrates up again", async function () {
      // A SAML provider (one per organisation, as going back to one provider per organisation needs) goes with its columns.
      const { orgId } = await insertOrgWithUser(db, "saml-rollback");
      await db("identity_providers").insert({
        org_id: orgId,
        display_name: "SAML",
        protocol: "saml",
        saml_config: JSON.stringify({ entity_id: "https://idp.example/saml" }),
        sp_private_key_encrypted: "v1.sealed",
        sp_certificate: "certificate",
      });
      const undone = await rollbackAll(db);
      expect(undone).to.have.members(migrations.map((m) => m.name));
      expect(await publicTables(db)).to.deep.equal([]);
      await migrateLatest(db);
      expect(await publicTables(db)).to.have.members([...APP_TABLES, ...OTHER_TABLES]);
    });
  });
});

describe("knowledge migration without pgvector", function () {
  let served: Served | undefined;

  before(async function () {
    served = await serve(new PGlite());
  });

  after(async function () {
    await shutdown(served);
  });

  it("fails with a message that names pgvector and how to get it", async function () {
    let failure: unknown;
    await knowledge.up(served!.db).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    const message = (failure as Error).message;
    expect(message).to.match(/pgvector extension is not available on this PostgreSQL server/);
    expect(message).to.include("pgvector/pgvector:pg17");
  });
});
