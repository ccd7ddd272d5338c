// The management API on a PostgreSQL server the test owns: stopped, restarted (`-m fast`: every
// connection terminated with 57P01) and killed with SIGKILL under write load. The process must
// stay up, answer 503 problem+json while the database is away, log it at error level, recover by
// itself, and lose no acknowledged write. Progress is counted in acknowledged writes, never timed.
import { startPrivatePostgres, type PrivatePostgres } from "@gatehouse/store/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnManagementApi, type ApiProcess } from "./support/api-process.js";
import { identityFor, WriteLoad } from "./support/write-load.js";

let postgres: PrivatePostgres;
let api: ApiProcess;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  api = await spawnManagementApi({ DATABASE_URL: postgres.url });
});
// A failed test leaves the server as the next one needs it.
afterEach(async () => {
  if (postgres.pid() === null) await postgres.start();
});
afterAll(async () => {
  await api?.stop();
  await postgres?.destroy();
});

function expectStillServing(): void {
  expect(api.exitCode(), api.output()).toBeNull();
}

describe("database faults", () => {
  it("answers 503 problem+json while the database is stopped, logs it at error level, and serves again once it is back", async () => {
    const load = new WriteLoad(api.baseUrl, "stopped-db-org", 1);
    load.start();
    await Promise.race([load.untilAcknowledged(1), api.died]);
    await load.stop();

    await postgres.stop();
    const write = await fetch(`${api.baseUrl}/api/rbac/v2/workspaces/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-rh-identity": identityFor("stopped-db-org") },
      body: JSON.stringify({ name: "while-away" }),
    });
    expect(write.status).toBe(503);
    expect(write.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(write.headers.get("retry-after")).toBe("1");
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(503);
    // The refusal is logged at error level, saying why, and so is the change feed becoming unreadable.
    await api.waitForLog((line) => line.level >= 50 && line.msg === "request failed" && /unavailable/i.test(JSON.stringify(line)));
    await api.waitForLog((line) => line.level >= 50 && line.msg.startsWith("change feed unreadable"));

    await postgres.start();
    const after = new WriteLoad(api.baseUrl, "stopped-db-org", 1);
    after.start();
    await Promise.race([after.untilAcknowledged(1), api.died]);
    await after.stop();
    await api.waitForLog((line) => line.msg === "change feed readable again");
    expectStillServing();
    const audit = await after.audit();
    expect(audit.lost).toEqual([]);
    // The write refused while the database was stopped was not carried out.
    expect((await listNames("stopped-db-org")).has("while-away")).toBe(false);
  });

  it("keeps serving through a fast restart and a kill -9 of Postgres under write load, with no acknowledged write lost", async () => {
    const load = new WriteLoad(api.baseUrl, "fault-load-org", 6);
    load.start();
    try {
      await Promise.race([load.untilAcknowledged(20), api.died]);

      let mark = load.outcomes.length;
      await postgres.restart("fast");
      await Promise.race([load.untilAcknowledged(20, mark), api.died]);
      expectStillServing();

      mark = load.outcomes.length;
      await postgres.kill();
      await postgres.start();
      await Promise.race([load.untilAcknowledged(20, mark), api.died]);
    } finally {
      await load.stop();
    }
    expectStillServing();

    const audit = await load.audit();
    expect(audit.lost).toEqual([]);
    // Every refusal was an answer (the process never went away) saying the database is unavailable.
    const refusals = load.outcomes.filter((o) => o.status !== 201);
    expect(refusals.filter((o) => o.status !== 503).map((o) => o.status)).toEqual([]);
    for (const refusal of refusals) expect(refusal.contentType).toMatch(/^application\/problem\+json/);
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
  });
});

async function listNames(org: string): Promise<Set<string>> {
  const response = await fetch(`${api.baseUrl}/api/rbac/v2/workspaces/?limit=-1`, { headers: { "x-rh-identity": identityFor(org) } });
  const body = (await response.json()) as { data: { name: string }[] };
  return new Set(body.data.map((w) => w.name));
}
