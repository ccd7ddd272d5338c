import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "./helpers.js";
import { CaseRun, loadCaseFiles } from "./conformance/runner.js";

// insights-rbac's own v2 view tests as data, replayed over HTTP on each backend.
const files = loadCaseFiles();
const backends: ("pglite" | "pg")[] = process.env["CI"] || process.env["DATABASE_URL"] ? ["pglite", "pg"] : ["pglite"];

for (const backend of backends) {
  describe(`insights-rbac v2 conformance on ${backend}`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp({}, { backend });
    });
    afterAll(() => app.stop());

    for (const { file, content } of files) {
      describe(file, () => {
        for (const c of content.cases) {
          it(c.test, async () => {
            const org = `cf${createHash("sha1").update(`${file}:${c.test}`).digest("hex").slice(0, 12)}`;
            const run = new CaseRun(app, org);
            await run.setup({ ...content.setup, ...c.setup });
            expect(await run.steps(c.steps)).toBeNull();
          });
        }
      });
    }
  });
}
