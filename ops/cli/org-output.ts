/** How `npm run org` prints: lines for a person, or one JSON value with `--json`. */
import type { OrgDeletionRow } from "../../db/queries/org-deletion";
import type { OrganisationSummary } from "../../db/queries/organizations";

export interface Output {
  /** The command's result: JSON for `--json`, else the lines. */
  result(json: unknown, lines: string[]): void;
  /** A line while something runs (silent under `--json`). */
  progress(line: string): void;
  table(json: unknown, lines: string[]): void;
}

export function printOrganisations(out: Output, page: { total: number; organisations: OrganisationSummary[] }): void {
  const rows = page.organisations.map((org) => ({
    id: org.id,
    slug: org.slug,
    name: org.name,
    people: org.people,
    documents: org.documents,
    created: new Date(org.created_at).toISOString().slice(0, 10),
    ...(org.deleting_since ? { deleting_since: org.deleting_since.toISOString() } : {}),
  }));
  const header = ["id", "slug", "name", "people", "documents", "created"] as const;
  const cells = [header.map(String), ...rows.map((row) => [...header.map((key) => String(row[key])), row.deleting_since ? "(being deleted)" : ""])];
  const widths = header.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell))
      .join("  ")
      .trimEnd(),
  );
  out.table({ total: page.total, organisations: rows }, [...lines, `${page.organisations.length} of ${page.total} organisations`]);
}

export function printDeletion(out: Output, deletion: OrgDeletionRow): void {
  const removed = Object.entries(deletion.counts).sort(([a], [b]) => a.localeCompare(b));
  const lines = [
    deletion.status === "completed"
      ? `deleted ${deletion.slug} (${deletion.name}); removed:`
      : `deletion of ${deletion.slug} failed: ${deletion.error ?? "unknown error"}; removed so far:`,
    ...removed.map(([kind, count]) => `  ${kind.padEnd(32)} ${count}`),
  ];
  out.result(
    { id: deletion.id, org_id: deletion.target_org_id, slug: deletion.slug, status: deletion.status, error: deletion.error, removed: deletion.counts },
    lines,
  );
}
