import { UnrecoverableError } from "bullmq";
import { expect } from "chai";
import type { WorkerDeps } from "../../workers/deps";
import { SupersededRun, runStage } from "../../workers/ingestion/ingest-run";
import { ExtractionError } from "../../workers/ingestion/extract/types";

const deps = (timeoutMs: number) => ({ config: { INGEST_TIMEOUT_MS: timeoutMs } }) as unknown as WorkerDeps;

describe("ingestion stage runner", () => {
  it("stops a stage that hangs once the document's time is up, without retry", async () => {
    const started = Date.now();
    const error = (await runStage(deps(100), () => new Promise(() => undefined)).catch((e: unknown) => e)) as Error;
    expect(error).to.be.instanceOf(UnrecoverableError);
    expect(error.message).to.match(/longer than/);
    expect(Date.now() - started).to.be.lessThan(2_000);
  });

  it("ends a superseded run quietly and fails bad files without retry", async () => {
    expect(await runStage(deps(1_000), async () => Promise.reject(new SupersededRun("reindexed")))).to.deep.equal({ superseded: true });
    const error = (await runStage(deps(1_000), async () => Promise.reject(new ExtractionError("The PDF is corrupt or encrypted and could not be read"))).catch((e: unknown) => e)) as Error;
    expect(error).to.be.instanceOf(UnrecoverableError);
    expect(error.message).to.equal("The PDF is corrupt or encrypted and could not be read");
  });
});
