import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "./helpers.js";
import { CaseRun, loadCaseFiles } from "./conformance/runner.js";

// insights-rbac's own v2 and v1 view tests as data, replayed over HTTP on each backend.
const files = loadCaseFiles();
const backends: ("pglite" | "pg")[] = process.env["CI"] || process.env["DATABASE_URL"] ? ["pglite", "pg"] : ["pglite"];

for (const backend of backends) {
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
            const org = `cf${createHash("sha1").update(`${file}:${c.test}`).digest("hex").slice(0, 12)}`;
            const run = new CaseRun(await appFor(c.config), org);
            await run.setup({ ...content.setup, ...c.setup });
            expect(await run.steps(c.steps)).toBeNull();
          });
        }
      });
    }
  });
}
