/** Moved to test/harness (the eval and bench harnesses use it too); kept here so tests import from test/support. */
export * from "../harness/client";
