import { createHash } from "node:crypto";
import { openTestStore, type TestStore } from "@gatehouse/store/testing";
import { afterAll, describe, expect, it } from "vitest";
import { buildServer, type ManagementApiServer } from "../../src/index.js";
import { DATABASE_URL, startApp, testRoleConfiguration, type TestApp } from "../helpers.js";
import { CaseRun, loadCaseFiles } from "./runner.js";
import { loadV1CaseFiles, runV1Case, seedV1SystemRoles, systemRolesKey, type V1CaseFile } from "./v1-runner.js";

// insights-rbac's own v2 and v1 view tests as data, replayed over HTTP on one backend: the YAML
// cases (cases/) and the older JSON v1 cases (v1-cases/), one runner, no per-test deadlines. Each
// backend has its own test file (../conformance.<backend>.test.ts), so the two run in parallel.
const files = loadCaseFiles();
const v1Files = loadV1CaseFiles();
const orgOf = (prefix: string, file: string, test: string) => `${prefix}${createHash("sha1").update(`${file}:${test}`).digest("hex").slice(0, 12)}`;

interface V1App {
  store: TestStore;
  server: ManagementApiServer;
  baseUrl: string;
}

/** Declares every case of both case formats on `backend`. */
export function describeConformance(backend: "pglite" | "pg"): void {
  describe(`insights-rbac v2 conformance on ${backend}`, () => {
    // One app per distinct `config` of a case (most cases: none), started when first needed.
    const apps = new Map<string, Promise<TestApp>>();
    const appFor = (config: Record<string, unknown> = {}) => {
      const key = JSON.stringify(config);
      if (!apps.has(key)) apps.set(key, startApp(config, { backend }));
      return apps.get(key)!;
    };
    afterAll(async () => {
      for (const app of apps.values()) await (await app).stop();
    });

    for (const { file, content } of files) {
      describe(file, () => {
        for (const c of content.cases) {
          it(c.test, async () => {
            const run = new CaseRun(await appFor(c.config), orgOf("cf", file, c.test));
            await run.setup({ ...content.setup, ...c.setup });
            expect(await run.steps(c.steps)).toBeNull();
          });
        }
      });
    }
  });

  describe(`insights-rbac v1 cases on ${backend}`, () => {
    // One app per set of public roles the cases name (upstream's fixtures start from an empty
    // public tenant plus their own system roles): a handful of stores, not one per case.
    const apps = new Map<string, Promise<V1App>>();
    const appFor = (c: V1CaseFile) => {
      const key = systemRolesKey(c);
      if (!apps.has(key)) {
        apps.set(
          key,
          (async () => {
            const store = await openTestStore(backend === "pg" ? { name: "pg", databaseUrl: DATABASE_URL } : { name: "pglite" });
            const server = buildServer({ port: 0, host: "127.0.0.1" }, { store, roleConfiguration: { ...(await testRoleConfiguration()), systemRoles: [] } });
            const { port } = await server.start();
            // After the start, as an importer would: the app's own (empty) seeding runs first.
            await seedV1SystemRoles(store, c);
            return { store, server, baseUrl: `http://127.0.0.1:${port}` };
          })(),
        );
      }
      return apps.get(key)!;
    };
    afterAll(async () => {
      for (const pending of apps.values()) {
        const app = await pending;
        await app.server.stop();
        await app.store.close();
      }
    });

    for (const { file, content } of v1Files) {
      it(`${file}: ${content.description}`, async () => {
        const app = await appFor(content);
        await runV1Case(app.store, app.baseUrl, content, orgOf("v1c", file, content.description));
      });
    }
  });
}
