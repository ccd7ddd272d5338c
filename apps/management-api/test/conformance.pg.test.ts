// insights-rbac's own view tests replayed on Postgres (the cases and runner: ./conformance/). Runs
// under CI or with DATABASE_URL set, as every Postgres test here.
import { describe, it } from "vitest";
import { describeConformance } from "./conformance/suite.js";

if (process.env["CI"] || process.env["DATABASE_URL"]) describeConformance("pg");
else describe.skip("insights-rbac conformance on pg (set DATABASE_URL)", () => it("needs Postgres", () => {}));
