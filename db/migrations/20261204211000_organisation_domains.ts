/**
 * An email domain belongs to the organisation that proves it (issue 44, point 2; review F2).
 * Until now a domain belonged to whichever organisation's provider listed it first, proven or
 * not, enabled or not. `organisation_domains` holds each organisation's domains, pending until
 * proven by a DNS TXT record (`method = dns`) or approved by the operator (`method = operator`).
 * Only a verified domain finds a provider on the public sign-in page, creates people at their
 * first sign-in, or keeps other organisations from adding its people. A domain is verified for
 * one organisation at most (the partial unique index); several may have it pending.
 *
 * Existing data: every domain a provider lists gets a row. It becomes verified (by the operator,
 * `verified_by` null, since nobody proved it) only where that organisation already has people on
 * the domain and no other organisation does: the evidence we have that it is theirs, which keeps
 * today's customers signing in. Every other listed domain is pending: a squatted domain (another
 * organisation has its people) or one nobody uses yet claims nothing until its owner proves it.
 * `down` drops the table; providers' `allowed_domains` were never changed.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("organisation_domains", (t) => {
    t.uuid("id").primary().defaultTo(knex.raw("gen_random_uuid()"));
    t.uuid("org_id").notNullable().references("id").inTable("organizations").onDelete("CASCADE");
    t.text("domain").notNullable();
    t.text("status").notNullable().defaultTo("pending").checkIn(["pending", "verified"], "organisation_domains_status");
    t.text("method").checkIn(["dns", "operator"], "organisation_domains_method");
    // Published as `skillnet-domain-verification=<token>`; random, so a record cannot be guessed ahead of the claim.
    t.text("token").notNullable();
    t.timestamp("verified_at", { useTz: true });
    t.uuid("verified_by").references("id").inTable("users").onDelete("SET NULL");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(["org_id", "domain"]);
  });
  await knex.raw(
    "ALTER TABLE organisation_domains ADD CONSTRAINT organisation_domains_verified CHECK ((status = 'verified') = (verified_at IS NOT NULL AND method IS NOT NULL))",
  );
  await knex.raw("CREATE UNIQUE INDEX organisation_domains_one_owner ON organisation_domains (domain) WHERE status = 'verified'");

  await knex.raw(`
    INSERT INTO organisation_domains (org_id, domain, status, method, token, verified_at)
    SELECT listed.org_id, listed.domain,
           CASE WHEN owned THEN 'verified' ELSE 'pending' END,
           CASE WHEN owned THEN 'operator' END,
           replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
           CASE WHEN owned THEN now() END
    FROM (
      SELECT DISTINCT p.org_id, lower(d) AS domain,
             EXISTS (SELECT 1 FROM users u WHERE u.org_id = p.org_id AND split_part(u.email, '@', 2) = lower(d))
             AND NOT EXISTS (SELECT 1 FROM users u WHERE u.org_id <> p.org_id AND split_part(u.email, '@', 2) = lower(d)) AS owned
      FROM identity_providers p, unnest(p.allowed_domains) AS d
    ) AS listed
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("organisation_domains");
}
