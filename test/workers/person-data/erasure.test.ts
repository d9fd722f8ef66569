/**
 * The erasure check (issues 33 and 44): a person with a rich history — tutor chats through the real
 * stack (Redis turn logs, latest-turn keys, jobs, an idempotency record, their questions' cached
 * embeddings), a checkpoint and a cancel flag left by a crashed turn, a rating with a comment,
 * question vectors, a cached content-gap report quoting them, an SSO identity link, a refresh
 * token, usage rows, an export, an audit trail, and an admin's assistant session that looked them
 * up and proposed an action about them (real admin turns: the scripted model calls
 * `list_employees`, `get_employee_detail` and `assign_course`; the session's summary is written by
 * the real `chat-summarise` job) — is erased; then every text, JSON, UUID, array and byte column of
 * every table in the schema, and every Redis key (names and values), is searched for their id,
 * email, name (as stored and folded) and a phrase they typed. Nothing is found but the explicit
 * exceptions below. The admin's session stays, readable, with a placeholder where the person was;
 * a colleague with the same first name stays named; a person of another organisation with the
 * same name and words, and that organisation's admin session about them, are untouched; an
 * employee cannot erase, another organisation's admin gets 404, a wrong confirmation 400; a
 * redelivered job changes nothing.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Redis } from "ioredis";
import type { Db } from "../../../db/knex";
import { findPersonErasure } from "../../../db/queries/person-erasure";
import type { ChatReply, ChatRequest } from "../../../offline-model/responder";
import { offlineReply } from "../../../offline-model/offline-responder";
import { turnCancelKey, turnCheckpointKey } from "../../../queues/turn-keys";
import { LlmClient } from "../../../workers/llm/client";
import { QueryEmbeddingCache } from "../../../workers/llm/query-embeddings";
import { embedPendingQuestions } from "../../../workers/maintenance/question-vectors";
import { usageLogSink } from "../../../workers/usage-log";
import { api, waitFor } from "../../harness/client";
import { stackWorker } from "../../reliability/helpers";
import { dropOrganisations } from "../../support/organizations";
import { stackSuite } from "../../support/suite";
import { freshOrganisation } from "../../server/routes/allowance/helpers";
import { ADMIN_PROMPT_MARKER, askAdmin, cleanUp, freshUser, type Person } from "../admin/helpers";
import { FAST_RETRY } from "../llm/helpers";
import { ask } from "../tutor/helpers";

/**
 * Where the erased person's id may still appear, and why: their anonymised row (every foreign key
 * stays valid), the learning records the organisation keeps on it (the default), and the record
 * of the erasure itself. Nothing else, and never their email, name or words.
 */
const ALLOWED = ["enrollments.user_id id", "person_erasures.user_id id", "user_skills.user_id id", "users.id id"];

/** What identifies the person or their data: their id, email, name, words, and the ids of their sessions and turns. */
type Needles = Record<string, string>;

/** Every (table.column needle) of the schema holding one of the needles, outside the rows of `skipOrg`. */
async function findInTables(db: Db, needles: Needles, skipOrg: string): Promise<{ found: string[]; tables: number; columns: number }> {
  const { rows } = await db.raw(
    `SELECT c.table_name, c.column_name, c.data_type,
            EXISTS (SELECT 1 FROM information_schema.columns o WHERE o.table_schema = c.table_schema AND o.table_name = c.table_name AND o.column_name = 'org_id') AS has_org
       FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'uuid', 'ARRAY', 'bytea')
      ORDER BY 1, 2`,
  );
  const found: string[] = [];
  const tables = new Set<string>();
  for (const column of rows as Array<{ table_name: string; column_name: string; data_type: string; has_org: boolean }>) {
    tables.add(column.table_name);
    for (const [kind, needle] of Object.entries(needles)) {
      const test = column.data_type === "bytea" ? "position(convert_to(?, 'UTF8') in ??) > 0" : "position(lower(?) in lower(??::text)) > 0";
      const scope = column.has_org ? " AND (org_id IS NULL OR org_id <> ?)" : "";
      const bindings = [column.table_name, needle, column.column_name, ...(column.has_org ? [skipOrg] : [])];
      const { rows: hits } = await db.raw(`SELECT count(*)::int AS n FROM ?? WHERE ${test}${scope}`, bindings);
      if (hits[0].n > 0) found.push(`${column.table_name}.${column.column_name} ${kind}`);
    }
  }
  return { found, tables: tables.size, columns: rows.length };
}

/** Every Redis key whose name or value holds a needle, except keys naming one of `skipIds` (the other organisation's person). */
async function findInRedis(redis: Redis, needles: Needles, skipIds: string[]): Promise<{ found: string[]; keys: number }> {
  const found: string[] = [];
  let keys = 0;
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    for (const key of batch) {
      keys += 1;
      if (skipIds.some((id) => key.includes(id))) continue;
      const type = await redis.type(key);
      const values: string[] = [key];
      if (type === "string") values.push((await redis.get(key)) ?? "");
      else if (type === "hash") values.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === "list") values.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === "set") values.push(JSON.stringify(await redis.smembers(key)));
      else if (type === "zset") values.push(JSON.stringify(await redis.zrange(key, "0", "-1")));
      else if (type === "stream") values.push(JSON.stringify(await redis.xrange(key, "-", "+")));
      const text = values.join("\n").toLowerCase();
      for (const [kind, needle] of Object.entries(needles)) if (text.includes(needle.toLowerCase())) found.push(`${key} (${type}) ${kind}`);
    }
  } while (cursor !== "0");
  return { found, keys };
}

/** One scripted admin conversation: the tool rounds the model calls for a message containing `marker`, then its answer. */
interface AdminPlan {
  marker: string;
  rounds: Array<Array<{ name: string; arguments: Record<string, unknown> }>>;
  answer: string;
}

/**
 * The scripted model behind the admins' assistants: each admin message runs its plan's tool rounds,
 * then answers; a summary request (the `chat-summarise` job) is answered with `summary`; the
 * tutor's requests go to the offline model.
 */
function adminModel(plans: AdminPlan[], summary: (prompt: string) => string) {
  return (request: ChatRequest): ChatReply => {
    const system = String(request.messages[0]?.content ?? "");
    const last = String(request.messages[request.messages.length - 1]?.content ?? "");
    if (last.trimEnd().endsWith("Summary:")) return { content: summary(last) };
    if (!system.includes(ADMIN_PROMPT_MARKER)) return offlineReply(request);
    const lastUser = [...request.messages].reverse().find((m) => m.role === "user");
    const asked = String(lastUser?.content ?? "");
    const roundsDone = request.messages.slice(request.messages.lastIndexOf(lastUser!)).filter((m) => m.role === "assistant" && m.tool_calls?.length).length;
    const plan = plans.find((candidate) => asked.includes(candidate.marker));
    if (!plan) return { content: "Nothing else stands out in the team." };
    const next = plan.rounds[roundsDone];
    return next ? { toolCalls: next } : { content: plan.answer };
  };
}

/** Lower case without accents: how an admin or the model may write a name (the search must find that too). */
const folded = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

describe("person-data: an erased person can no longer be found anywhere", function () {
  const stack = stackSuite(this, { timeoutMs: 120_000 });
  const db = () => stack.server.deps.db;
  const redis = () => stack.server.deps.redis;
  const unique = randomUUID().slice(0, 8);
  const name = `Zélda Quillfeather ${unique}`;
  const namesake = `Zélda Brightwater ${unique}`;
  const phrase = `lavender-walrus-${unique}`;
  let orgA = "";
  let orgB = "";
  let admin: Person;
  let colleague: Person;
  let person: Person;
  let adminB: Person;
  let twin: Person;
  let twinSession = "";
  let twinTurn = "";
  let erasureId = "";
  let adminSession = "";
  let adminLookupTurn = "";
  let adminSessionB = "";
  let adminTurnsB: string[] = [];
  let namesakeId = "";
  let uncachedLlm: LlmClient | undefined;

  const erase = (token: string, id: string, body: unknown) => api(stack.baseUrl, "POST", `/api/v1/admin/people/${id}/erasure`, { token, body });
  /** The organisation's content-gap report once computed (the endpoint answers 202 while a job groups the questions). */
  const readyGapReport = () =>
    waitFor(
      async () => {
        const answer = await api(stack.baseUrl, "GET", "/api/v1/admin/insights/content-gaps", { token: admin.token });
        return answer.body.status === "ready" ? answer.body : undefined;
      },
      30_000,
      "the content-gap report",
    );
  const count = async (table: string, where: Record<string, unknown>) => Number((await db()(table).where(where).count<{ n: string }[]>("* as n"))[0]!.n);

  before(async function () {
    this.timeout(240_000);
    orgA = await freshOrganisation(stack, "Erasure A");
    orgB = await freshOrganisation(stack, "Erasure B");
    admin = await freshUser(stack, { role: "admin", orgId: orgA });
    colleague = await freshUser(stack, { orgId: orgA });
    person = await freshUser(stack, { orgId: orgA, name });
    adminB = await freshUser(stack, { role: "admin", orgId: orgB });
    twin = await freshUser(stack, { orgId: orgB, name });
    namesakeId = (await freshUser(stack, { orgId: orgA, name: namesake })).id;
    // The suites' stack runs with the query-embedding cache off (test/harness/infrastructure.ts): these turns cache their questions' vectors.
    uncachedLlm = stack.workers.deps.llm;
    stack.workers.deps.llm = new LlmClient(stack.config, {
      retry: FAST_RETRY,
      usage: usageLogSink(db(), { defaultMonthlyTokens: stack.config.organisations.AI_MONTHLY_TOKENS_PER_ORG }),
      queryCache: new QueryEmbeddingCache(stack.workers.deps.redis, 3600),
    });

    // Tutor chats through the real stack: messages, jobs, turn logs, latest-turn keys, usage rows.
    const first = await ask(
      stack,
      { token: person.token, userId: person.id, email: person.email, socket: person.socket, events: person.events },
      `How do I book the ${phrase} offsite?`,
    );
    expect(first.answer?.metadata.rung).to.equal("general");
    const again = await api(stack.baseUrl, "POST", "/api/v1/chat", {
      token: person.token,
      body: { message: `And who pays for the ${phrase} dinner?`, session_id: first.sessionId },
      headers: { "Idempotency-Key": `erasure-${unique}` },
    });
    expect(again.status).to.equal(202);
    await waitFor(async () => (await count("chat_messages", { turn_id: again.body.turn_id, role: "assistant" })) === 1, 30_000, "the second answer");
    const theirs = await ask(
      stack,
      { token: twin.token, userId: twin.id, email: twin.email, socket: twin.socket, events: twin.events },
      `How do I book the ${phrase} offsite?`,
    );
    twinSession = theirs.sessionId;
    twinTurn = theirs.turnId;

    // A rating with a comment, question vectors, and the content-gap report cached in Redis.
    const rated = await api(stack.baseUrl, "POST", `/api/v1/chat/messages/${first.answer!.id}/feedback`, {
      token: person.token,
      body: { rating: "down", comment: `Nothing about the ${phrase} here.` },
    });
    expect(rated.status).to.equal(200);
    await embedPendingQuestions(stack.workers.deps, 500);
    expect(await count("question_vectors", { org_id: orgA })).to.be.above(0);
    const report = await readyGapReport();
    expect(JSON.stringify(report.groups)).to.include(phrase);

    // What a crashed turn leaves (a checkpoint quoting the question, a cancel flag), an SSO identity, a refresh token.
    const cluster = redis().isCluster;
    await redis().set(turnCheckpointKey(cluster, first.turnId, "retrieval"), JSON.stringify({ question: `the ${phrase} offsite` }), "EX", 3600);
    await redis().set(turnCancelKey(cluster, first.turnId), "1", "EX", 3600);
    const [provider] = await db()("identity_providers")
      .insert({ org_id: orgA, display_name: "Test IdP", issuer: `https://idp-${unique}.example`, client_id: "skillnet" })
      .returning("id");
    await db()("identity_links").insert({
      org_id: orgA,
      user_id: person.id,
      provider_id: provider.id,
      issuer: `https://idp-${unique}.example`,
      subject: `sub-${unique}`,
    });
    await db()("refresh_tokens").insert({
      org_id: orgA,
      user_id: person.id,
      family_id: randomUUID(),
      token_hash: `hash-${unique}`,
      expires_at: new Date(Date.now() + 86_400_000),
    });

    // Learning records the organisation keeps, an audited change and an admin action about them.
    const [course] = await db()("courses")
      .insert({ org_id: orgA, title: `Onboarding ${unique}`, language: "en" })
      .returning("id");
    await db()("enrollments").insert({ org_id: orgA, user_id: person.id, course_id: course.id, status: "in_progress" });
    const [skill] = await db()("skills")
      .insert({ org_id: orgA, name: `Negotiation ${unique}` })
      .returning("id");
    await db()("user_skills").insert({ org_id: orgA, user_id: person.id, skill_id: skill.id, level: 3 });
    const changed = await api(stack.baseUrl, "PATCH", `/api/v1/admin/people/${person.id}`, { token: admin.token, body: { job_title: "Buyer" } });
    expect(changed.status).to.equal(200);

    // An admin's assistant looks them up and proposes enrolling them (real admin turns), then talks on until the
    // session's summary of older turns is written by the `chat-summarise` job.
    const [safety] = await db()("courses")
      .insert({ org_id: orgA, title: `Safety ${unique}`, language: "en" })
      .returning("id");
    stack.llm.setResponder(
      adminModel(
        [
          {
            marker: "How is",
            rounds: [[{ name: "list_employees", arguments: { search: unique } }], [{ name: "get_employee_detail", arguments: { employee_id: person.id } }]],
            answer: `${name} (${person.email}) is enrolled in Onboarding ${unique} and has Negotiation at level 3; ${namesake} sits in the same team.`,
          },
          {
            marker: "Enrol",
            rounds: [[{ name: "assign_course", arguments: { course_id: safety.id, employee_ids: [person.id] } }]],
            answer: `I propose enrolling ${folded(name).toUpperCase()} in Safety ${unique}. Confirm?`,
          },
          {
            marker: "Tell me about",
            rounds: [[{ name: "get_employee_detail", arguments: { employee_id: twin.id } }]],
            answer: `${name} (${twin.email}) has no courses yet.`,
          },
        ],
        (prompt) => (prompt.includes(unique) ? `The admin looked up ${name} (${person.email}, id ${person.id}) and proposed an enrolment.` : "Nothing."),
      ),
    );
    const lookup = await askAdmin(stack, admin, `How is ${folded(name)} doing?`);
    expect(lookup.answer?.content).to.include(name);
    adminSession = lookup.sessionId;
    adminLookupTurn = lookup.turnId;
    const proposal = await askAdmin(stack, admin, `Enrol them in Safety ${unique}`, adminSession);
    expect(proposal.pending, "the assistant proposed an action").to.not.equal(undefined);
    for (let n = 0; n < 5; n += 1) await askAdmin(stack, admin, `Anything else about the team (${n})?`, adminSession);
    await waitFor(async () => (await db()("chat_sessions").where({ id: adminSession }).first())?.summary, 30_000, "the admin session's summary");
    const aboutTwin = await askAdmin(stack, adminB, `Tell me about ${name}`);
    adminSessionB = aboutTwin.sessionId;
    adminTurnsB = [aboutTwin.turnId];
    // Their own export, built by the queue.
    const exported = await api(stack.baseUrl, "POST", "/api/v1/me/export", { token: person.token });
    expect(exported.status).to.equal(202);
    await waitFor(
      async () => (await api(stack.baseUrl, "GET", "/api/v1/me/export", { token: person.token })).body.export?.status === "completed",
      30_000,
      "the export",
    );
    // An admin's copy, built and downloaded: both audited.
    const adminCopy = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${person.id}/export`, { token: admin.token });
    expect(adminCopy.status).to.equal(202);
    const built = await waitFor(
      async () => {
        const answer = await api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/export`, { token: admin.token });
        return answer.body.export?.status === "completed" ? answer.body.export : undefined;
      },
      30_000,
      "the admin's export",
    );
    const downloaded = await fetch(`${stack.baseUrl}${built.download_url}`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(downloaded.status).to.equal(200);
    await downloaded.arrayBuffer();
    expect(await count("llm_usage_log", { user_id: person.id })).to.be.above(0);
  });

  after(async () => {
    if (uncachedLlm) stack.workers.deps.llm = uncachedLlm;
    await cleanUp(stack);
    await dropOrganisations(db(), [orgA, orgB]);
  });

  it("is for admins of the person's organisation, confirmed with the person's email", async () => {
    const employee = await erase(colleague.token, person.id, { confirm: person.email });
    expect(employee.status).to.equal(403);
    const otherOrg = await erase(adminB.token, person.id, { confirm: person.email });
    expect(otherOrg.status).to.equal(404);
    expect(otherOrg.body.error.code).to.equal("NOT_FOUND");
    const wrong = await erase(admin.token, person.id, { confirm: "someone@else.example" });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error.code).to.equal("ERASURE_NOT_CONFIRMED");
    const missing = await erase(admin.token, person.id, {});
    expect(missing.status).to.equal(400);
    expect(missing.body.error.code).to.equal("VALIDATION_ERROR");
    const self = await erase(admin.token, admin.id, { confirm: admin.email });
    expect(self.status).to.equal(409);
    expect(self.body.error.code).to.equal("SELF_ERASURE");
    expect(await count("person_erasures", { org_id: orgA })).to.equal(0);
    const noneYet = await api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token });
    expect(noneYet.status).to.equal(404);
  });

  it("erases them: nothing of theirs is left in any table or Redis key, and the other organisation's twin is untouched", async () => {
    const twinMessages = await count("chat_messages", { session_id: twinSession });
    const sessions = await db()("chat_sessions").where({ user_id: person.id }).pluck("id");
    const turns = await db()("chat_messages").whereIn("session_id", sessions).distinct("turn_id").pluck("turn_id");
    expect(sessions).to.have.length(1);
    expect(turns).to.have.length(2);
    const needles: Needles = { id: person.id, email: person.email, name, foldedName: folded(name), phrase };
    sessions.forEach((id: string, n: number) => (needles[`session${n}`] = id));
    turns.forEach((id: string, n: number) => (needles[`turn${n}`] = id));
    const twinIds = [orgB, twin.id, twinSession, twinTurn, adminSessionB, ...adminTurnsB];
    const adminMessages = await count("chat_messages", { session_id: adminSession });
    const adminMessagesB = await db()("chat_messages").where({ session_id: adminSessionB }).orderBy("created_at").select("content", "metadata");
    // The searches find what is there: before the erasure, the person is everywhere.
    const beforeTables = (await findInTables(db(), needles, orgB)).found;
    for (const place of [
      "chat_messages.content phrase",
      "chat_feedback.comment phrase",
      "users.email email",
      "users.name name",
      "llm_usage_log.user_id id",
      "identity_links.user_id id",
      "refresh_tokens.user_id id",
      "audit_log.target_id id",
      "admin_action_items.label name",
      "person_exports.user_id id",
      "chat_messages.content name",
      "chat_messages.content foldedName",
      "chat_messages.metadata id",
      "chat_sessions.summary name",
    ])
      expect(beforeTables, "before the erasure").to.include(place);
    const beforeKeys = (await findInRedis(redis(), needles, twinIds)).found.join("\n");
    for (const family of [
      ":retrieval (string) phrase",
      ":cancel (string) turn",
      ":log (stream) turn",
      ":latest-turn (string) session",
      ":events (stream) turn",
      "idempotency:",
      "content-gaps:",
      "-generate (hash) id",
    ])
      expect(beforeKeys, `before the erasure, a key like ${family}`).to.include(family);
    expect(beforeKeys, "the admin's streamed answer names them").to.include(`${adminLookupTurn}:log (stream) name`);
    const cachedVectors = async (orgId: string) => (await redis().keys(`skillnet:*query-embedding:${orgId}:*`)).length;
    expect(await cachedVectors(orgA), "their questions' embeddings are cached").to.be.above(0);
    const cachedVectorsB = await cachedVectors(orgB);
    expect(cachedVectorsB, "so are the twin's").to.be.above(0);
    const started = performance.now();
    const asked = await erase(admin.token, person.id, { confirm: ` ${person.email.toUpperCase()} ` });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    erasureId = asked.body.erasure.id;
    expect(asked.headers.get("location")).to.equal(`/api/v1/admin/people/${person.id}/erasure`);
    // Locked out at once, before the job has run.
    expect((await api(stack.baseUrl, "GET", "/api/v1/me", { token: person.token })).status).to.equal(401);

    const done = await waitFor(
      async () => {
        const progress = await api(stack.baseUrl, "GET", `/api/v1/admin/people/${person.id}/erasure`, { token: admin.token });
        return ["completed", "failed"].includes(progress.body.erasure?.status) ? progress.body.erasure : undefined;
      },
      90_000,
      "the erasure",
    );
    const elapsedMs = Math.round(performance.now() - started);
    expect(done.status, done.error ?? "").to.equal("completed");
    expect(done.step).to.equal("done");
    expect(done.removed).to.include({
      "rows.chat_sessions": 1,
      "rows.chat_feedback": 1,
      "rows.identity_links": 1,
      "rows.refresh_tokens": 1,
      "rows.person_exports": 2,
    });
    expect(done.removed["rows.chat_messages"]).to.equal(4);
    expect(done.removed["rows.question_vectors"]).to.be.at.least(1);
    expect(done.removed["unlinked.llm_usage_log.user_id"]).to.be.at.least(1);
    expect(done.removed["scrubbed.audit_log"]).to.be.at.least(1);
    expect(done.removed.redis_keys).to.be.at.least(3);
    expect(done.removed.jobs).to.be.at.least(2);
    const statuses = admin.events
      .filter((event) => (event.event as string) === "person_data" && event.payload.id === erasureId)
      .map((event) => event.payload.status);
    expect(statuses).to.include("running");
    await waitFor(
      async () => admin.events.some((event) => (event.event as string) === "person_data" && event.payload.status === "completed"),
      5_000,
      "the completed event",
    );

    const tables = await findInTables(db(), needles, orgB);
    expect(tables.found, "table columns holding the person's id, email, name or words").to.deep.equal(ALLOWED);
    const keys = await findInRedis(redis(), needles, twinIds);
    expect(keys.found, "Redis keys holding the person's id, email, name or words").to.deep.equal([]);
    console.log(
      `      erasure check: ${tables.tables} tables (${tables.columns} columns) and ${keys.keys} Redis keys scanned; matches outside the ${ALLOWED.length} allowed: 0; request to completed ${elapsedMs} ms`,
    );

    // The admin's session stays, readable: the person is a placeholder there, the colleague with the same first name is still named.
    expect(await count("chat_messages", { session_id: adminSession })).to.equal(adminMessages);
    const kept = await db()("chat_messages").where({ session_id: adminSession }).orderBy("created_at").select("role", "content", "metadata");
    const lookedUp = kept.find((message) => message.role === "assistant" && message.content.includes(namesake));
    expect(lookedUp?.content).to.match(/^\[erased person\] \(\[erased person\]\) is enrolled in Onboarding/);
    expect(kept[0]!.content).to.equal("How is [erased person] doing?");
    const calls = kept.flatMap((message) => message.metadata.tool_calls ?? []);
    expect(calls.map((call: { name: string }) => call.name)).to.include.members(["list_employees", "get_employee_detail", "assign_course"]);
    expect(calls.find((call: { name: string }) => call.name === "get_employee_detail").arguments).to.deep.equal({ employee_id: "[erased person]" });
    expect((await db()("chat_sessions").where({ id: adminSession }).first()).summary).to.include("[erased person]");
    expect(await db()("users").where({ id: namesakeId }).first()).to.include({ name: namesake });
    expect(await cachedVectors(orgA), "the organisation's cached question embeddings went").to.equal(0);
    // The other organisation's admin session about the twin, and its cached embeddings, are untouched.
    expect(await db()("chat_messages").where({ session_id: adminSessionB }).orderBy("created_at").select("content", "metadata")).to.deep.equal(adminMessagesB);
    expect(JSON.stringify(adminMessagesB)).to.include(name);
    expect(await cachedVectors(orgB)).to.equal(cachedVectorsB);

    // What is left of them is an anonymised, inactive placeholder, audited as erased by the admin.
    const row = await db()("users").where({ id: person.id }).first();
    expect(row).to.include({ name: "Erased person", email: `erased-${erasureId}@invalid`, is_active: false, department: null, job_title: null });
    expect(row.erased_at).to.be.instanceOf(Date);
    const audit = await db()("audit_log").where({ org_id: orgA, action: "person.erased" });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ actor_id: admin.id, target_type: "person_erasure", target_id: erasureId });
    expect(await count("enrollments", { user_id: person.id }), "learning records kept by default").to.equal(1);
    // The trail of their exports survives, naming the admin and the export, not them.
    const exportTrail = await db()("audit_log")
      .where({ org_id: orgA })
      .whereIn("action", ["person.export_requested", "person.export_downloaded"])
      .orderBy("created_at")
      .select("actor_id", "action", "target_type", "details");
    expect(exportTrail).to.deep.equal([
      { actor_id: null, action: "person.export_requested", target_type: "person_export", details: { scrubbed: "the person this named was erased" } },
      { actor_id: admin.id, action: "person.export_requested", target_type: "person_export", details: { scrubbed: "the person this named was erased" } },
      { actor_id: admin.id, action: "person.export_downloaded", target_type: "person_export", details: { scrubbed: "the person this named was erased" } },
    ]);

    // The other organisation's person with the same name and words is untouched.
    expect(await count("chat_messages", { session_id: twinSession })).to.equal(twinMessages);
    expect(await db()("users").where({ id: twin.id }).first()).to.include({ name, email: twin.email, is_active: true });
    expect(await count("llm_usage_log", { user_id: twin.id })).to.be.above(0);
    expect(await redis().exists(`skillnet:turn:${twinTurn}:log`)).to.equal(1);
  });

  it("leaves no API, report or search returning anything of theirs", async () => {
    const search = await api(stack.baseUrl, "GET", `/api/v1/admin/people?search=${encodeURIComponent(unique)}`, { token: admin.token });
    expect(search.body.people.map((p: { id: string }) => p.id)).not.to.include(person.id);
    const usage = await api(stack.baseUrl, "GET", "/api/v1/admin/usage", { token: admin.token });
    expect(JSON.stringify(usage.body)).not.to.include(name);
    const report = await readyGapReport();
    expect(JSON.stringify(report)).not.to.include(phrase);
    const exported = await api(stack.baseUrl, "POST", `/api/v1/admin/people/${person.id}/export`, { token: admin.token });
    expect(exported.status).to.equal(409);
    expect(exported.body.error.code).to.equal("PERSON_ERASED");
    const again = await erase(admin.token, person.id, { confirm: `erased-${erasureId}@invalid` });
    expect(again.status).to.equal(409);
    const revived = await api(stack.baseUrl, "PATCH", `/api/v1/admin/people/${person.id}`, { token: admin.token, body: { is_active: true } });
    expect(revived.status).to.equal(409);
    expect(revived.body.error.code).to.equal("PERSON_ERASED");
  });

  it("is idempotent: a redelivered or re-queued erase job changes nothing", async () => {
    const before = await findPersonErasure(db(), orgA, erasureId);
    await stack.server.deps.producer.enqueuePersonData({ kind: "erase", orgId: orgA, erasureId, run: 7 });
    await waitFor(async () => (await stack.server.deps.producer.queue("person-data").getJobState(`${erasureId}-erase-7`)) === "unknown", 20_000, "the re-run");
    const after = await findPersonErasure(db(), orgA, erasureId);
    expect(after!.counts).to.deep.equal(before!.counts);
    expect(after!.finished_at).to.deep.equal(before!.finished_at);
    expect(await db()("audit_log").where({ org_id: orgA, action: "person.erased" })).to.have.length(1);
  });

  it('with learning_records "erase" deletes their enrolments and skills too, once however many times its job is delivered', async () => {
    const second = await freshUser(stack, { orgId: orgA, name: `Otto Second ${unique}` });
    const [session] = await db()("chat_sessions").insert({ org_id: orgA, user_id: second.id, agent_type: "tutor", title: "Mine" }).returning("id");
    const turn = randomUUID();
    await db()("chat_messages").insert([
      { org_id: orgA, session_id: session.id, turn_id: turn, role: "user", content: `Second ${phrase}` },
      { org_id: orgA, session_id: session.id, turn_id: turn, role: "assistant", content: "An answer." },
    ]);
    const course = await db()("courses").where({ org_id: orgA }).first("id");
    await db()("enrollments").insert({ org_id: orgA, user_id: second.id, course_id: course.id });
    const skill = await db()("skills").where({ org_id: orgA }).first("id");
    await db()("user_skills").insert({ org_id: orgA, user_id: second.id, skill_id: skill.id, level: 2 });
    await db()("llm_usage_log").insert([1, 2, 3].map(() => ({ org_id: orgA, user_id: second.id, use_case: "tutor", model: "m", prompt_tokens: 5 })));

    const worker = stackWorker(stack, "person-data");
    await worker.pause();
    let erasure;
    try {
      const asked = await erase(admin.token, second.id, { confirm: second.email, learning_records: "erase" });
      expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
      erasure = asked.body.erasure;
      expect(erasure.learning_records).to.equal("erase");
      // A second delivery of the same erasure waits behind the first.
      await stack.server.deps.producer.enqueuePersonData({ kind: "erase", orgId: orgA, erasureId: erasure.id, run: 2 });
      const again = await erase(admin.token, second.id, { confirm: second.email, learning_records: "erase" });
      expect(again.body.erasure.id, "asking again answers the erasure under way").to.equal(erasure.id);
    } finally {
      worker.resume();
    }
    const done = await waitFor(
      async () => {
        const record = await findPersonErasure(db(), orgA, erasure.id);
        const queue = stack.server.deps.producer.queue("person-data");
        const settled = (await queue.getJobState(`${erasure.id}-erase-1`)) === "unknown" && (await queue.getJobState(`${erasure.id}-erase-2`)) === "unknown";
        return record?.status === "completed" && settled ? record : undefined;
      },
      60_000,
      "both deliveries",
    );
    expect(done.counts).to.include({
      "rows.chat_messages": 2,
      "rows.chat_sessions": 1,
      "rows.enrollments": 1,
      "rows.user_skills": 1,
      "unlinked.llm_usage_log.user_id": 3,
    });
    expect(await db()("audit_log").where({ org_id: orgA, action: "person.erased", target_id: erasure.id })).to.have.length(1);
    const found = await findInTables(db(), { id: second.id, email: second.email, name: `Otto Second ${unique}`, session: session.id, turn }, orgB);
    expect(found.found).to.deep.equal(["person_erasures.user_id id", "users.id id"]);
  });
});
