/**
 * The catalog records an integration sends (lib/catalog-records.ts): each type's upsert and
 * delete, references by the caller's ids, and a clear reason for every record that is refused.
 */
import { expect } from "chai";
import { CATALOG_RECORD_TYPES, parseCatalogRecord } from "../../../lib/catalog-records";

const accepted = (raw: unknown) => {
  const parsed = parseCatalogRecord(raw);
  if (!parsed.ok) throw new Error(`refused: ${parsed.problem.message}`);
  return parsed.record;
};
const refused = (raw: unknown) => {
  const parsed = parseCatalogRecord(raw);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed.record)}`);
  return parsed.problem;
};

describe("catalog records", () => {
  it("reads an upsert of every type, with defaults filled", () => {
    const samples: Record<string, object> = {
      skill_category: { external_id: "cat-1", name: "Customer care" },
      skill: { external_id: "sk-1", name: "Returns", category: "cat-1" },
      course: { external_id: "c-1", title: "Retours", language: "fr" },
      module: { external_id: "m-1", course: "c-1", title: "Basics", position: 1 },
      lesson: { external_id: "l-1", module: "m-1", title: "Receipts", content: "# Receipts\n\nBring one.", position: 1 },
      exercise: { external_id: "x-1", lesson: "l-1", prompt: "How many days?", kind: "short_answer", answer: { value: 30 } },
      enrollment: { person: { email: "Ana@Example.com" }, course: "c-1", status: "in_progress", deadline: "2027-01-31T00:00:00Z" },
      skill_level: { person: { external_id: "hr-42" }, skill: "sk-1", level: 3 },
      exercise_attempt: { external_id: "at-1", exercise: "x-1", person: { external_id: "hr-42" }, passed: true, score: 0.8 },
      review_schedule: { person: { external_id: "hr-42" }, exercise: "x-1", next_review_at: "2027-01-02T09:00:00+01:00", interval_days: 3, ease: 2.5 },
    };
    expect(Object.keys(samples)).to.have.members(CATALOG_RECORD_TYPES);
    for (const [type, fields] of Object.entries(samples)) expect(accepted({ type, ...fields }).type).to.equal(type);
    expect(accepted({ type: "course", external_id: "c-1", title: "Retours", language: "fr" })).to.include({ status: "published" });
    expect(accepted({ type: "enrollment", ...samples.enrollment })).to.deep.include({ person: { email: "ana@example.com" } });
  });

  it("reads a delete by id, or by its pair for pair-keyed types, and nothing else with it", () => {
    expect(accepted({ type: "lesson", op: "delete", external_id: "l-1" })).to.deep.equal({ type: "lesson", op: "delete", external_id: "l-1" });
    expect(accepted({ type: "enrollment", op: "delete", person: { email: "a@b.co" }, course: "c-1" })).to.include({ op: "delete" });
    expect(refused({ type: "lesson", op: "delete", external_id: "l-1", title: "x" }).message).to.equal("title: unknown field");
    expect(refused({ type: "enrollment", op: "delete", person: { email: "a@b.co" } }).message).to.match(/^course:/);
  });

  it("names every bad field of a refused record, unknown ones included", () => {
    const problem = refused({ type: "course", external_id: " padded", title: "", language: "english", colour: "red" });
    expect(problem.code).to.equal("INVALID_RECORD");
    for (const field of ["external_id:", "title:", "language:", "colour: unknown field"]) expect(problem.message).to.contain(field);
    expect(refused({ type: "skill_level", person: { email: "a@b.co" }, skill: "s", level: 6 }).message).to.match(/^level:/);
    expect(refused({ type: "enrollment", person: { name: "Ana" }, course: "c-1", status: "completed" }).message).to.match(/^person/);
  });

  it("refuses what is not a record with a reason, never a throw", () => {
    for (const raw of [null, 5, "course", [], {}]) expect(refused(raw).code).to.be.oneOf(["INVALID_RECORD", "UNKNOWN_TYPE"]);
    expect(refused({ type: "webinar", external_id: "w" })).to.deep.include({ code: "UNKNOWN_TYPE" });
    expect(refused({ type: "__proto__" }).code).to.equal("UNKNOWN_TYPE");
    expect(refused({ type: "course", external_id: "x".repeat(201), title: "t", language: "en" }).message).to.match(/^external_id:/);
  });
});
