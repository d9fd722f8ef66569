/**
 * The alert rules as Prometheus itself evaluates them: `promtool test rules` runs
 * ops/prometheus/alerts.test.yml (Debian's prometheus package, installed by scripts/ensure-deps.sh
 * for npm test), which must hold a firing and a not-firing case for every alert; each alert's
 * runbook must exist in docs/operations.md. The scrape of a running product by a real Prometheus
 * is in test/e2e/observability.test.ts.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { parse } from "yaml";

const RULES = "ops/prometheus/alerts.yml";
const RULE_TESTS = "ops/prometheus/alerts.test.yml";

interface RuleFile {
  groups: Array<{ rules: Array<{ alert: string; expr: string; annotations: Record<string, string> }> }>;
}
interface RuleTests {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

const alerts = (): RuleFile["groups"][number]["rules"] => (parse(readFileSync(RULES, "utf8")) as RuleFile).groups.flatMap((group) => group.rules);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync("promtool", args, { encoding: "utf8" });
  if (run.error) throw new Error(`promtool is missing (Debian: apt-get install prometheus; scripts/ensure-deps.sh --prometheus): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("Prometheus alert rules (promtool)", () => {
  it("are valid rules, and every unit test in alerts.test.yml passes", () => {
    const checked = promtool("check", "rules", RULES);
    expect(checked.status, checked.output).to.equal(0);
    expect(checked.output).to.include("SUCCESS: 10 rules found");
    const tested = promtool("test", "rules", RULE_TESTS);
    expect(tested.status, tested.output).to.equal(0);
    expect(tested.output).to.include("SUCCESS");
  });

  it("has a firing and a not-firing unit test for each of the ten alerts", () => {
    const cases = (parse(readFileSync(RULE_TESTS, "utf8")) as RuleTests).tests.flatMap((test) => test.alert_rule_test ?? []);
    const names = alerts().map((rule) => rule.alert);
    expect(names).to.have.length(10);
    for (const name of names) {
      const ofAlert = cases.filter((test) => test.alertname === name);
      expect(
        ofAlert.some((test) => test.exp_alerts.length > 0),
        `${name} firing`,
      ).to.equal(true);
      expect(
        ofAlert.some((test) => test.exp_alerts.length === 0),
        `${name} not firing`,
      ).to.equal(true);
    }
  });

  it("fails the unit tests when a rule's threshold drifts", () => {
    const dir = mkdtempSync(join(tmpdir(), "skillnet-rules-"));
    try {
      const drifted = readFileSync(RULES, "utf8").replace('{queue=~"tutor-.*|admin-plan"}) > 30', '{queue=~"tutor-.*|admin-plan"}) > 300');
      expect(drifted).to.not.equal(readFileSync(RULES, "utf8"));
      writeFileSync(join(dir, "alerts.yml"), drifted);
      copyFileSync(RULE_TESTS, join(dir, "alerts.test.yml"));
      const tested = promtool("test", "rules", join(dir, "alerts.test.yml"));
      expect(tested.status).to.not.equal(0);
      expect(tested.output).to.include("alertname: SkillnetQueueBacklog");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a runbook section of docs/operations.md for each alert", () => {
    const operations = readFileSync("docs/operations.md", "utf8");
    const headings = new Set(
      [...operations.matchAll(/^#{2,4} (.+)$/gm)].map(([, text]) =>
        text!
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, "")
          .replace(/ /g, "-"),
      ),
    );
    for (const rule of alerts()) {
      expect(rule.annotations.runbook_url, rule.alert).to.equal(`docs/operations.md#${rule.alert.toLowerCase()}`);
      expect(headings.has(rule.alert.toLowerCase()), `docs/operations.md has a "${rule.alert}" section`).to.equal(true);
    }
  });
});
