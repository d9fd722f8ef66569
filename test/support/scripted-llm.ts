/** Moved to scripts/harness (the eval harness uses it too); kept here so tests import from test/support. */
export * from "../../scripts/harness/scripted-llm";
