// The bulk load (principals and hosts written straight into the store by `gatehouse import-hosts`)
// against the load through the public APIs (a request each): two servers on two databases, the same
// data set, and the same answers: Checks over a sample of hosts and subjects, every measured
// subject's workspace list (compared by plan index, since the servers assign their own ids), and
// the management API's principals.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateManifest, type Manifest } from "../shared/manifest.ts";
import { hostId, scaleOf, userId } from "../shared/model.ts";
import { checkBulkRequest, listWorkspacesRequest, principalSubject } from "../shared/requests.ts";
import { connectInventory, listAllWorkspaces, type InventoryClient } from "../src/grpc-client.ts";
import { managementClient } from "../src/http-client.ts";
import { bulkLoader } from "../src/rehearse/bulk-load.ts";
import { ProcessRegistry } from "../src/rehearse/processes.ts";
import { dropDatabase, loadScenarioFile, runLoadTest } from "../src/run.ts";
import { spawnServer, type SpawnedServer } from "../src/server.ts";
import { ensureDatabase } from "../src/app-db.ts";

const base = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const file = loadScenarioFile();
const SCALE = "smoke";
const scale = scaleOf(file, SCALE);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gatehouse-bulk-parity-"));
const registry = new ProcessRegistry();

interface Loaded {
  server: SpawnedServer;
  grpc: InventoryClient;
  manifest: Manifest;
  databaseUrl: string;
}

function database(mode: string): string {
  const url = new URL(base);
  url.pathname = `/lt_bulk_parity_${mode}_${process.pid}`;
  return url.toString();
}

async function load(mode: "api" | "bulk"): Promise<Loaded> {
  const databaseUrl = database(mode);
  await ensureDatabase(databaseUrl);
  const dataDir = path.join(tmp, mode);
  // No start deadline of the test's own (the CLI's is 90 s): on a loaded machine loading the sources
  // alone can take longer, and the suite's hook timeout bounds a server that never starts.
  const server = await spawnServer({ dataDir: path.join(dataDir, "store"), databaseUrl, startTimeoutMs: 600_000 });
  const bulk = mode === "bulk" ? bulkLoader({ registry, dir: tmp, databaseUrl, orgId: file.org, fromSource: true, env: { PATH: process.env["PATH"], HOME: process.env["HOME"] } }) : undefined;
  await runLoadTest({
    scale: SCALE,
    dataDir,
    appDb: "pglite:memory",
    external: { httpUrl: server.httpUrl, grpcTarget: server.grpcTarget },
    smoke: true,
    fresh: false,
    generateOnly: true,
    concurrency: 16,
    outDir: tmp,
    outName: mode,
    command: "bulk parity",
    showProgress: false,
    log: () => undefined,
    ...(bulk ? { bulk } : {}),
  });
  const manifest = validateManifest(JSON.parse(readFileSync(path.join(dataDir, "manifest.json"), "utf8")));
  return { server, grpc: connectInventory(server.grpcTarget), manifest, databaseUrl };
}

describe("bulk load against the load through the APIs", () => {
  let api: Loaded;
  let bulk: Loaded;
  beforeAll(async () => {
    [api, bulk] = await Promise.all([load("api"), load("bulk")]);
  });
  afterAll(async () => {
    for (const l of [api, bulk]) {
      l?.grpc.close();
      await l?.server.stop();
      if (l) await dropDatabase(l.databaseUrl);
    }
    await registry.stopAll();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("gives the same Check answers for every host and a spread of subjects", async () => {
    const hosts = Array.from({ length: scale.hosts }, (_, h) => hostId(h));
    const subjects = [...api.manifest.measured.slice(0, 6), scale.principals - 1, scale.principals - 2, scale.principals - 3];
    // The generator ended with a fully consistent CheckForUpdate: both engines hold every write.
    let allowed = 0;
    for (const p of subjects) {
      const subject = principalSubject(api.manifest.domain, userId(p));
      const answers = async (l: Loaded) =>
        (await l.grpc.unary<{ pairs: { item?: { allowed: string } }[] }>("CheckBulk", checkBulkRequest(hosts, file.relations.contingent, subject))).pairs.map((pair) => pair.item?.allowed);
      const [a, b] = await Promise.all([answers(api), answers(bulk)]);
      expect(b, userId(p)).toEqual(a);
      allowed += a.filter((x) => x === "ALLOWED_TRUE").length;
    }
    // Not all one answer: the sample proves placements and grants, not just their absence.
    expect(allowed).toBeGreaterThan(0);
    expect(allowed).toBeLessThan(hosts.length * subjects.length);
  });

  it("lists the same workspaces (by plan index) for every measured subject", async () => {
    const indexOf = (l: Loaded) => new Map(l.manifest.workspaceIds.map((id, i) => [id, i] as const));
    const [ia, ib] = [indexOf(api), indexOf(bulk)];
    for (const p of api.manifest.measured) {
      const subject = principalSubject(api.manifest.domain, userId(p));
      const list = async (l: Loaded, index: Map<string, number>) =>
        (await listAllWorkspaces(l.grpc, (token) => listWorkspacesRequest(file.relations.contingent, subject, 1000, token))).map((id) => index.get(id) ?? id).sort();
      expect(await list(bulk, ib), userId(p)).toEqual(await list(api, ia));
    }
  });

  it("shows the same principals in the management API", async () => {
    const principals = async (l: Loaded) => (await managementClient(l.server.httpUrl, file.org).get<{ meta: { count: number } }>("/api/rbac/v1/principals/?limit=1")).meta.count;
    expect(await principals(bulk)).toBe(await principals(api));
    expect(await principals(api)).toBeGreaterThanOrEqual(scale.principals);
  });
});
