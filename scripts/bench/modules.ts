/** The benchmark modules in the order `npm run bench` runs them. */
import type { BenchSettings } from "./settings";
import { breakdownModule } from "./breakdown";
import { catalogImportModule } from "./catalog-import";
import { fairnessModule } from "./fairness";
import { hostileImportModule } from "./hostile-import";
import { ingestionModule } from "./ingestion";
import { memoryModule } from "./memory";
import { pipelineOverheadModule } from "./pipeline-overhead";
import { roundTripModule } from "./round-trip";
import { scaleOutModule } from "./scale-out";
import { streamingModelModule } from "./streaming-model";
import { throughputModule } from "./throughput";
import { tokenLagModule } from "./token-lag";
import { vectorSearchModule } from "./vector-search";

export interface BenchModule {
  /** File name under scripts/bench/ and the `--only` key. */
  name: string;
  title: string;
  run(settings: BenchSettings): Promise<string>;
}

// Vector search last: at 100k chunks PGlite's HNSW build alone takes many minutes.
export const MODULES: BenchModule[] = [
  pipelineOverheadModule,
  breakdownModule,
  tokenLagModule,
  throughputModule,
  ingestionModule,
  memoryModule,
  scaleOutModule,
  fairnessModule,
  catalogImportModule,
  hostileImportModule,
  streamingModelModule,
  roundTripModule,
  vectorSearchModule,
];
