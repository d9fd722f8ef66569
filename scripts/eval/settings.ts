/** The settings a results page records, so two runs can be told apart and compared fairly. */
import { cpus, totalmem } from "node:os";
import type { Config } from "../../lib/config";
import { hashedEmbeddingModel } from "../../offline-model/hashed-embeddings";
import { KEEP, OVER_RETRIEVE, SIMILARITY_BLEND } from "../../workers/tutor/retrieval/hybrid-search";

export function evalSettings(config: Config, realModel: boolean): Record<string, string | number> {
  return {
    model: realModel ? `${config.llm.LLM_MODEL} at ${config.llm.LLM_BASE_URL}` : "offline extractive model (offline-model/), hashed embeddings",
    // The offline model answers every embeddings request with hashed bag-of-words vectors, whatever EMBEDDING_MODEL names.
    embeddings: config.embedding.EMBEDDING_BASE_URL
      ? `${config.embedding.EMBEDDING_MODEL} at ${config.embedding.EMBEDDING_BASE_URL} (EMBEDDING_BASE_URL), ${config.embedding.EMBEDDING_DIMENSIONS} dimensions`
      : realModel
        ? `${config.embedding.EMBEDDING_MODEL}, ${config.embedding.EMBEDDING_DIMENSIONS} dimensions`
        : `${hashedEmbeddingModel(config.embedding.EMBEDDING_DIMENSIONS)} (offline hashed bag of words, standing in for ${config.embedding.EMBEDDING_MODEL}), ${config.embedding.EMBEDDING_DIMENSIONS} dimensions`,
    chunking: `${config.ingestion.CHUNK_STRATEGY}, ${config.ingestion.CHUNK_TOKENS} tokens, ${config.ingestion.CHUNK_OVERLAP_TOKENS} overlap`,
    retrieval: `${config.retrieval.RETRIEVAL_FUSION === "rrf" ? `reciprocal rank fusion (k ${config.retrieval.RETRIEVAL_RRF_K})` : `weighted sum ${config.retrieval.RETRIEVAL_VECTOR_WEIGHT} × cosine + ${Math.round((1 - config.retrieval.RETRIEVAL_VECTOR_WEIGHT) * 100) / 100} × keyword rank`}, similarity floor ${config.retrieval.RETRIEVAL_SIMILARITY_FLOOR}, keyword-coverage floor ${config.retrieval.RETRIEVAL_KEYWORD_COVERAGE_FLOOR}, over-retrieve ${OVER_RETRIEVE}, keep ${KEEP}; a hit grounds at rarity-weighted coverage + ${SIMILARITY_BLEND} × cosine ≥ ${config.retrieval.RETRIEVAL_GROUNDING_COVERAGE} or cosine ≥ ${config.retrieval.RETRIEVAL_GROUNDING_SIMILARITY}`,
    machine: `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
  };
}
