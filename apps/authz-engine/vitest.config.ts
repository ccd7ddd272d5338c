import { defineConfig, mergeConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.mjs";

const base = mergeConfig(sharedConfig, defineConfig({ test: { globalSetup: ["test/tls-setup.ts"] } }));

/**
 * Suites run a second time with every engine they start on two threads (test/helpers.ts reads
 * AUTHZ_TEST_THREADS): every gRPC method, the Kessel SDK's examples and conformance cases, the
 * HTTP/JSON API, streaming, consistency after writes, the tuple service and inventory-api's cases,
 * with writes through the store bridge whenever a connection lands on the second thread.
 * test/threads.test.ts (two threads in any project) covers both threads by count: checks while
 * commits apply, HTTP/JSON writes and reads across threads, one scrape, objects held once, a thread
 * replaced. `pnpm test:threads` runs the same set alone.
 */
export const TWO_THREAD_SUITES = [
  "test/rpc.test.ts",
  "test/sdk-examples.test.ts",
  "test/sdk-conformance.test.ts",
  "test/http-json.test.ts",
  "test/streaming.test.ts",
  "test/new-enemy.test.ts",
  "test/tuple-service.test.ts",
  "test/inventory-cases.test.ts",
];

// Projects spelled out rather than `extends: true`, which would add `include` to the shared one.
const project = (name: string, test: TestProjectInlineConfiguration["test"]): TestProjectInlineConfiguration => ({ ...base, test: { ...base.test, ...test, name } });

export default mergeConfig(
  sharedConfig,
  defineConfig({
    test: {
      projects: [project("suites", {}), project("two-threads", { include: TWO_THREAD_SUITES, env: { ...base.test?.env, AUTHZ_TEST_THREADS: "2" } })],
    },
  }),
);
