/** The export archive's layout and transcripts, built from data in memory (no stack). */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { PersonData } from "../../../../db/queries/person-data";
import { buildExportArchive, sessionTranscript } from "../../../../workers/person-data/export-archive";
import { unzip } from "../../../support/zip-entries";

const at = new Date("2026-12-03T10:15:30Z");
const citation = { index: 1, document: "Returns policy", section: "§ 2 Refunds", page: 4, sourceType: "document_chunk" as const, sourceId: "c1" };

function person(sessions: PersonData["sessions"]): PersonData {
  return {
    profile: { id: "u1", name: "Ana Núñez", email: "ana@example.com" },
    sessions,
    feedback: [{ message_id: "m2", rating: "down", comment: "vague" }],
    enrolments: [],
    skills: [],
    exercise_attempts: [],
    review_schedules: [],
    identity_links: [],
  };
}

const session = (title: string | null): PersonData["sessions"][number] => ({
  id: "s1",
  agent_type: "tutor",
  title,
  summary: null,
  context: {},
  created_at: at,
  updated_at: at,
  messages: [
    { id: "m1", turn_id: "t1", role: "user", content: "¿Cuántos días tengo para devolver?", status: "complete", created_at: at, rung: null, citations: [] },
    { id: "m2", turn_id: "t1", role: "assistant", content: "Tienes 30 días [1].", status: "complete", created_at: at, rung: "chunks", citations: [citation] },
  ],
});

describe("person export archive", () => {
  it("holds README.md, data.json and one transcript per session, named after its title", async () => {
    const data0 = person([session("¿Cuántos días? Devoluciones"), session(null)]);
    const { zip, counts } = await buildExportArchive(data0, at);
    const entries = unzip(zip);
    expect([...entries.keys()]).to.deep.equal(["README.md", "data.json", "sessions/001-cuantos-dias-devoluciones.md", "sessions/002-session.md"]);
    expect(counts).to.include({ sessions: 2, messages: 4, feedback: 1 });
    const data = JSON.parse(entries.get("data.json")!);
    expect(data).to.include({ exported_at: at.toISOString(), format: "skillnet-person-export/1" });
    expect(data.sessions[0].messages[1].citations).to.deep.equal([citation]);
    // Written a session at a time, byte for byte what one JSON.stringify of it all would give.
    expect(entries.get("data.json")).to.equal(JSON.stringify({ exported_at: at.toISOString(), format: "skillnet-person-export/1", ...data0 }, null, 2));
    expect(entries.get("README.md")).to.include("Ana Núñez <ana@example.com>").and.to.include("sessions/002-session.md");
  });

  it("writes a transcript with who said what, when, and the sources an answer cited", () => {
    const text = sessionTranscript(session("Devoluciones"), "Ana Núñez");
    expect(text.split("\n")).to.include.members([
      "# Devoluciones",
      "## Ana Núñez — 2026-12-03T10:15:30.000Z",
      "¿Cuántos días tengo para devolver?",
      "## Tutor — 2026-12-03T10:15:30.000Z",
      "Sources:",
      "  [1] Returns policy (§ 2 Refunds, p. 4)",
    ]);
  });

  it("is a zip that other tools open, with its entries dated", async function () {
    const folder = mkdtempSync(join(tmpdir(), "export-zip-"));
    const file = join(folder, "export.zip");
    writeFileSync(file, (await buildExportArchive(person([session("Devoluciones")]), at)).zip);
    let listing: string;
    try {
      listing = execFileSync(
        "python3",
        ["-c", "import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print([i.date_time for i in z.infolist()][0])", file],
        {
          encoding: "utf8",
        },
      );
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") this.skip();
      throw error;
    }
    expect(listing.trim()).to.equal("(2026, 12, 3, 10, 15, 30)");
  });
});
