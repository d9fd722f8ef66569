/**
 * Runs the schema migrations from a static list instead of Knex's directory scan: the scan
 * depends on the working directory and on file extensions (.ts under tsx, .js when compiled),
 * while static imports resolve the same way wherever and however the process starts.
 */
import type { Knex } from "knex";
import type { Db } from "./knex";
import * as platform from "./migrations/20261129000001_platform";
import * as knowledge from "./migrations/20261129000002_knowledge";
import * as chat from "./migrations/20261129000003_chat";
import * as ops from "./migrations/20261129000004_ops";
import * as ingestion from "./migrations/20261129000005_ingestion";
import * as adminAssistant from "./migrations/20261129000006_admin_assistant";
import * as extractionLimits from "./migrations/20261129000007_extraction_limits";
import * as documentAccess from "./migrations/20261129000008_document_access";
import * as turnCancel from "./migrations/20261129000009_turn_cancel";
import * as openTurnIndex from "./migrations/20261129000011_open_turn_index";
import * as aiAllowanceAndInsights from "./migrations/20261129000021_ai_allowance_and_insights";
import * as actionAnnounced from "./migrations/20261201000018_action_announced";
import * as recordLlmUsage from "./migrations/20261201000024_record_llm_usage";
import * as orgVectorIndexes from "./migrations/20261201000025_org_vector_indexes";
import * as vectorIndexTail from "./migrations/20261201000031_vector_index_tail";
import * as orgStorageQuota from "./migrations/20261202000200_org_storage_quota";
import * as identity from "./migrations/20261202000300_identity";
import * as orgDeletion from "./migrations/20261202000400_org_deletion";
import * as scim from "./migrations/20261202000500_scim";
import * as integrations from "./migrations/20261202000600_integrations";
import * as catalogImports from "./migrations/20261203000010_catalog_imports";
import * as personData from "./migrations/20261203000100_person_data";
import * as chatRetention from "./migrations/20261203000200_chat_retention";
import * as actionStop from "./migrations/20261203000500_action_stop";
import * as userLocale from "./migrations/20261203000600_user_locale";
import * as catalogImportBounds from "./migrations/20261204210000_catalog_import_bounds";
import * as organisationDomains from "./migrations/20261204211000_organisation_domains";
import * as erasureLock from "./migrations/20261204212000_erasure_lock";
import * as failureCodes from "./migrations/20261204213000_failure_codes";
import * as auditEventNames from "./migrations/20261205010000_audit_event_names";
import * as operationRecords from "./migrations/20261205020000_operation_records";
import * as catalogImportRecords from "./migrations/20261205020100_catalog_import_records";
import * as organisationPolicy from "./migrations/20261205030000_organisation_policy";
import * as samlIdentityProviders from "./migrations/20261206010000_saml_identity_providers";
import * as severalIdentityProviders from "./migrations/20261206020000_several_identity_providers";
import * as pageLocale from "./migrations/20261206030000_page_locale";
import * as chatAttachments from "./migrations/20261206060000_chat_attachments";

export interface NamedMigration {
  /** Recorded in `knex_migrations`; extension-free so a compiled build sees the same history. */
  name: string;
  migration: Knex.Migration;
}

/** In application order; names must sort in the same order and never be renamed once shipped. */
export const migrations: readonly NamedMigration[] = [
  { name: "20261129000001_platform", migration: platform },
  { name: "20261129000002_knowledge", migration: knowledge },
  { name: "20261129000003_chat", migration: chat },
  { name: "20261129000004_ops", migration: ops },
  { name: "20261129000005_ingestion", migration: ingestion },
  { name: "20261129000006_admin_assistant", migration: adminAssistant },
  { name: "20261129000007_extraction_limits", migration: extractionLimits },
  { name: "20261129000008_document_access", migration: documentAccess },
  { name: "20261129000009_turn_cancel", migration: turnCancel },
  { name: "20261129000011_open_turn_index", migration: openTurnIndex },
  { name: "20261129000021_ai_allowance_and_insights", migration: aiAllowanceAndInsights },
  { name: "20261201000018_action_announced", migration: actionAnnounced },
  { name: "20261201000024_record_llm_usage", migration: recordLlmUsage },
  { name: "20261201000025_org_vector_indexes", migration: orgVectorIndexes },
  { name: "20261201000031_vector_index_tail", migration: vectorIndexTail },
  { name: "20261202000200_org_storage_quota", migration: orgStorageQuota },
  { name: "20261202000300_identity", migration: identity },
  { name: "20261202000400_org_deletion", migration: orgDeletion },
  { name: "20261202000500_scim", migration: scim },
  { name: "20261202000600_integrations", migration: integrations },
  { name: "20261203000010_catalog_imports", migration: catalogImports },
  { name: "20261203000100_person_data", migration: personData },
  { name: "20261203000200_chat_retention", migration: chatRetention },
  { name: "20261203000500_action_stop", migration: actionStop },
  { name: "20261203000600_user_locale", migration: userLocale },
  { name: "20261204210000_catalog_import_bounds", migration: catalogImportBounds },
  { name: "20261204211000_organisation_domains", migration: organisationDomains },
  { name: "20261204212000_erasure_lock", migration: erasureLock },
  { name: "20261204213000_failure_codes", migration: failureCodes },
  { name: "20261205010000_audit_event_names", migration: auditEventNames },
  { name: "20261205020000_operation_records", migration: operationRecords },
  { name: "20261205020100_catalog_import_records", migration: catalogImportRecords },
  { name: "20261205030000_organisation_policy", migration: organisationPolicy },
  { name: "20261206010000_saml_identity_providers", migration: samlIdentityProviders },
  { name: "20261206020000_several_identity_providers", migration: severalIdentityProviders },
  { name: "20261206030000_page_locale", migration: pageLocale },
  { name: "20261206060000_chat_attachments", migration: chatAttachments },
];

class StaticMigrationSource implements Knex.MigrationSource<NamedMigration> {
  constructor(private readonly list: readonly NamedMigration[]) {}

  async getMigrations(): Promise<NamedMigration[]> {
    return [...this.list];
  }

  getMigrationName(entry: NamedMigration): string {
    return entry.name;
  }

  async getMigration(entry: NamedMigration): Promise<Knex.Migration> {
    return entry.migration;
  }
}

export const migrationSource: Knex.MigrationSource<NamedMigration> = new StaticMigrationSource(migrations);

const migratorConfig: Knex.MigratorConfig = { migrationSource };

/**
 * Applies every pending migration, in one transaction unless one of them cannot run in one
 * (`config.transaction = false`: CREATE INDEX CONCURRENTLY); each then runs in its own. Returns
 * the names it applied.
 */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(migratorConfig)) as [number, string[]];
  return applied;
}

/** Undoes every applied migration (tests; to start `npm start` from zero, delete `.data/`); returns their names. */
export async function rollbackAll(db: Db): Promise<string[]> {
  const [, undone] = (await db.migrate.rollback(migratorConfig, true)) as [number, string[]];
  return undone;
}
