/** Moved to test/harness (the eval harness uses it too); kept here so tests import from test/support. */
export * from "../harness/scripted-llm";
