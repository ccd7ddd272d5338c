// `gatehouse org-mode` (the management API's start is slow on a busy machine: a long hook timeout): an operator sees an organisation's v1 / v2 mode and activates v2 through a
// management API on this host; v1 role writes are refused afterwards.
import { encodeIdentityHeader } from "@gatehouse/auth";
import { buildServer as buildManagementApi } from "@gatehouse/management-api";
import { openStore, type Store } from "@gatehouse/store";
import { createSilentLogger } from "@gatehouse/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/program.js";
import { captureOutput } from "./support/capture-output.js";

const output = captureOutput();
let store: Store;
let server: ReturnType<typeof buildManagementApi>;
let url: string;
const ORG = "orgmode1";
const identity = encodeIdentityHeader({ orgId: ORG, userId: "admin", username: "admin", isOrgAdmin: true });

beforeAll(async () => {
  store = await openStore();
  server = buildManagementApi({ port: 0, host: "127.0.0.1" }, { store, logger: createSilentLogger(), consoleDir: null });
  url = `http://127.0.0.1:${(await server.start()).port}`;
  // The organisation exists once its first authenticated request has been answered.
  await fetch(`${url}/api/rbac/v1/roles/?limit=1`, { headers: { "x-rh-identity": identity } });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

const run = (...args: string[]) => buildProgram().parseAsync(["node", "gatehouse", "org-mode", ...args]);
const createRole = (name: string) =>
  fetch(`${url}/api/rbac/v1/roles/`, { method: "POST", headers: { "x-rh-identity": identity, "content-type": "application/json" }, body: JSON.stringify({ name, access: [] }) });

describe("gatehouse org-mode", () => {
  it("shows v1, activates v2 when parity shows no lost grant, and v1 role writes are refused after", async () => {
    await run(ORG, "--url", url);
    expect(output.out).toBe(`${ORG}: v1\n`);
    expect((await createRole("before")).status).toBe(201);

    const printed = output.out.length;
    await run(ORG, "--url", url, "--activate", "--require-parity", "--json");
    expect(JSON.parse(output.out.slice(printed))).toMatchObject({ org_id: ORG, mode: "v2", parity_lost: 0, changed: true });
    expect((await createRole("after")).status).toBe(403);
  });

  it("fails with the server's words for an unknown organisation", async () => {
    await run("no-such-org", "--url", url);
    expect(process.exitCode).toBe(1);
    expect(output.err).toContain("404");
  });
});
