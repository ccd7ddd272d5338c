// Who may ReportResource / DeleteResource what: registered reporters only, for their resource
// types, in their own organisation unless allowed any. Every refusal changes nothing.
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { credentials } from "@grpc/grpc-js";
import { randomUUID } from "node:crypto";
import { Allowed, relations, WriteVisibility } from "@gatehouse/proto";
import { openStore, type Store, type Tenant } from "@gatehouse/store";
import { OAuth2Server, type JwtTransform } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseReporters } from "../src/index.js";
import { call, host, principal, readGrant, rejection, startEngine, type RunningEngine } from "./helpers.js";

const ENGINE = "gatehouse-engine";
let issuer: OAuth2Server;
let engine: RunningEngine;
let store: Store;
let mine: Tenant;
let theirs: Tenant;

beforeAll(async () => {
  issuer = new OAuth2Server();
  await issuer.issuer.keys.generate("RS256");
  await issuer.start(0, "127.0.0.1");
  store = await openStore({ pollIntervalMs: 50 });
  mine = (await store.tenants.bootstrap("tenancy-mine")).value;
  theirs = (await store.tenants.bootstrap("tenancy-theirs")).value;
  await store.relationships.write("tenancy-mine", { touch: readGrant(mine.defaultWorkspaceId, "alice") });
  await store.relationships.write("tenancy-theirs", { touch: readGrant(theirs.defaultWorkspaceId, "bob") });
  engine = await startEngine(
    {
      authn: { mode: "oidc", serverUrl: issuer.issuer.url as string, clientId: ENGINE, insecureClient: true },
      reporters: parseReporters(
        JSON.stringify({
          "hbi-mine": { resource_types: ["hbi/host"] },
          "hbi-global": { resource_types: ["hbi/host"], allow_any_org: true },
          "other-app": { resource_types: ["acm/cluster"], allow_any_org: true },
          "rbac-replicator": { resource_types: "*", allow_any_org: true },
        }),
      ),
    },
    store,
  );
});
afterAll(async () => {
  await engine?.close();
  await store?.close();
  await issuer?.stop();
});

async function as(clientId: string, orgId: string | null): Promise<Metadata> {
  const transform: JwtTransform = (_header, payload) =>
    Object.assign(payload, { sub: `sub-${clientId}`, azp: clientId, client_id: clientId, aud: ENGINE }, orgId ? { organization: { id: orgId } } : {});
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${await issuer.issuer.buildToken({ scopesOrTransform: transform, expiresIn: 600 })}`);
  return metadata;
}

const report = (id: string, ws: string, type = "host", reporterType = "hbi") => ({
  type,
  reporterType,
  reporterInstanceId: "instance",
  representations: { metadata: { localResourceId: id, apiHref: `https://x/${id}` }, common: { workspace_id: ws } },
  writeVisibility: WriteVisibility.IMMEDIATE,
});

async function hostVisible(id: string, user: string): Promise<boolean> {
  // CheckForUpdate reads at the store's head revision.
  const res = await call(engine.client, "checkForUpdate", { object: host(id), relation: "view", subject: { resource: principal(user) } }, await as("hbi-global", null));
  return res.allowed === Allowed.ALLOWED_TRUE;
}

describe("engine write tenancy", () => {
  it("lets a reporter write its types into its own organisation", async () => {
    await call(engine.client, "reportResource", report("t-host-1", mine.defaultWorkspaceId), await as("hbi-mine", "tenancy-mine"));
    expect(await hostVisible("t-host-1", "alice")).toBe(true);
    await call(engine.client, "deleteResource", { reference: host("t-host-1") }, await as("hbi-mine", "tenancy-mine"));
    expect(await hostVisible("t-host-1", "alice")).toBe(false);
  });

  it("never places a report into another organisation's workspace, and answers it as for a workspace nobody created", async () => {
    const mineAs = await as("hbi-mine", "tenancy-mine");
    await call(engine.client, "reportResource", report("t-host-2", theirs.defaultWorkspaceId), mineAs);
    await call(engine.client, "reportResource", report("t-host-2b", randomUUID()), mineAs);
    expect(await hostVisible("t-host-2", "bob")).toBe(false);
    expect(await store.placements.get("hbi/host", "t-host-2")).toMatchObject({ reporterOrg: "tenancy-mine" });
    // Both are held reports of mine: dropped alike.
    await call(engine.client, "deleteResource", { reference: host("t-host-2") }, mineAs);
    await call(engine.client, "deleteResource", { reference: host("t-host-2b") }, mineAs);
    expect(await hostVisible("t-host-2", "bob")).toBe(false);
  });

  it("answers a delete of another organisation's resource exactly as one of a resource that never existed", async () => {
    await call(engine.client, "reportResource", report("t-host-oracle", theirs.defaultWorkspaceId), await as("hbi-global", null));
    const mineAs = await as("hbi-mine", "tenancy-mine");
    const theirsHost = await rejection(call(engine.client, "deleteResource", { reference: host("t-host-oracle") }, mineAs));
    const never = await rejection(call(engine.client, "deleteResource", { reference: host("t-host-nevr") }, mineAs));
    expect({ code: theirsHost.code, details: theirsHost.details.replace("t-host-oracle", "ID") }).toEqual({ code: never.code, details: never.details.replace("t-host-nevr", "ID") });
    expect(never.code).toBe(status.NOT_FOUND);
    expect(await hostVisible("t-host-oracle", "bob")).toBe(true);
  });

  it("answers a report of another organisation's resource into mine exactly as one of a resource that never existed, and moves nothing", async () => {
    await call(engine.client, "reportResource", report("t-host-named", theirs.defaultWorkspaceId), await as("hbi-global", null));
    const mineAs = await as("hbi-mine", "tenancy-mine");
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        (answer) => ({ code: status.OK, details: "", answer }),
        (error: ServiceError) => ({ code: error.code, details: error.details, answer: undefined }),
      );
    const theirsHost = await outcome(call(engine.client, "reportResource", report("t-host-named", mine.defaultWorkspaceId), mineAs));
    const never = await outcome(call(engine.client, "reportResource", report(`t-host-${randomUUID()}`, mine.defaultWorkspaceId), mineAs));
    expect(theirsHost).toEqual(never);
    expect(never.code).toBe(status.OK);
    expect(await hostVisible("t-host-named", "bob")).toBe(true);
    expect(await hostVisible("t-host-named", "alice")).toBe(false);
    // A reporter allowed into every organisation may know where it is: refused, naming neither.
    const global = await rejection(call(engine.client, "reportResource", report("t-host-named", mine.defaultWorkspaceId), await as("hbi-global", null)));
    expect(global.code).toBe(status.PERMISSION_DENIED);
    expect(global.details).not.toMatch(/t-host-named|tenant|tenancy-theirs/);
    expect(await hostVisible("t-host-named", "alice")).toBe(false);
  });

  it("answers the same over HTTP/JSON: another organisation's resource as one that never existed", async () => {
    await call(engine.client, "reportResource", report("t-host-json", theirs.defaultWorkspaceId), await as("hbi-global", null));
    const token = (await as("hbi-mine", "tenancy-mine")).get("authorization")[0] as string;
    const post = async (id: string) => {
      const response = await fetch(`http://127.0.0.1:${engine.metricsPort}/api/kessel/v1beta2/resources`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({
          type: "host",
          reporterType: "hbi",
          reporterInstanceId: "instance",
          representations: { metadata: { localResourceId: id, apiHref: `https://x/${id}` }, common: { workspace_id: mine.defaultWorkspaceId } },
          writeVisibility: "IMMEDIATE",
        }),
      });
      return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
    };
    const theirsHost = await post("t-host-json");
    const never = await post(`t-host-${randomUUID()}`);
    expect(theirsHost).toEqual(never);
    expect(never.status).toBe(200);
    expect(await hostVisible("t-host-json", "bob")).toBe(true);
    expect(await hostVisible("t-host-json", "alice")).toBe(false);
  });

  it("refuses a report from a token without an organisation unless the reporter may act for any", async () => {
    const error = await rejection(call(engine.client, "reportResource", report("t-host-3", mine.defaultWorkspaceId), await as("hbi-mine", null)));
    expect(error.code).toBe(status.PERMISSION_DENIED);
    await call(engine.client, "reportResource", report("t-host-3", theirs.defaultWorkspaceId), await as("hbi-global", null));
    expect(await hostVisible("t-host-3", "bob")).toBe(true);
  });

  it("refuses a delete of another organisation's resource, which stays", async () => {
    await call(engine.client, "reportResource", report("t-host-4", theirs.defaultWorkspaceId), await as("hbi-global", null));
    const error = await rejection(call(engine.client, "deleteResource", { reference: host("t-host-4") }, await as("hbi-mine", "tenancy-mine")));
    expect(error.code).toBe(status.NOT_FOUND);
    expect(await hostVisible("t-host-4", "bob")).toBe(true);
  });

  it("refuses resource types the reporter is not registered for", async () => {
    const error = await rejection(call(engine.client, "reportResource", report("t-host-5", mine.defaultWorkspaceId), await as("other-app", null)));
    expect(error.code).toBe(status.PERMISSION_DENIED);
    const del = await rejection(call(engine.client, "deleteResource", { reference: host("t-host-3") }, await as("other-app", null)));
    expect(del.code).toBe(status.PERMISSION_DENIED);
    expect(await hostVisible("t-host-3", "bob")).toBe(true);
  });

  it("refuses callers that are not registered reporters, and tells them nothing about existence", async () => {
    const metadata = await as("random-client", "tenancy-theirs");
    expect((await rejection(call(engine.client, "reportResource", report("t-host-6", theirs.defaultWorkspaceId), metadata))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(call(engine.client, "deleteResource", { reference: host("t-host-3") }, metadata))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(call(engine.client, "deleteResource", { reference: host("no-such-host") }, metadata))).code).toBe(status.PERMISSION_DENIED);
    expect(await hostVisible("t-host-3", "bob")).toBe(true);
  });

  it("refuses a malformed reporters setting at start", () => {
    expect(() => parseReporters("[]")).toThrow(/object/);
    expect(() => parseReporters(JSON.stringify({ a: { resource_types: ["host"] } }))).toThrow(/resource_types/);
    expect(() => parseReporters(JSON.stringify({ a: { resource_types: "*", allow_any_org: "yes" } }))).toThrow(/allow_any_org/);
  });
});

describe("write tenancy of held reports (workspace not created yet)", () => {
  it("binds a held report to the reporter's organisation and refuses unregistered callers and types", async () => {
    const pendingWs = randomUUID();
    expect((await rejection(call(engine.client, "reportResource", report("t-held-1", pendingWs), await as("random-client", "tenancy-mine")))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(call(engine.client, "reportResource", report("t-held-1", pendingWs), await as("other-app", null)))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(call(engine.client, "reportResource", report("t-held-1", pendingWs), await as("hbi-mine", null)))).code).toBe(status.PERMISSION_DENIED);
    expect(await store.placements.get("hbi/host", "t-held-1")).toBeFalsy();
    await call(engine.client, "reportResource", report("t-held-1", pendingWs), await as("hbi-mine", "tenancy-mine"));
    expect(await store.placements.get("hbi/host", "t-held-1")).toMatchObject({ workspaceId: pendingWs, reporterOrg: "tenancy-mine" });
    // A reporter allowed into any organisation holds it unbound.
    await call(engine.client, "reportResource", report("t-held-2", randomUUID()), await as("hbi-global", null));
    expect(await store.placements.get("hbi/host", "t-held-2")).toMatchObject({ reporterOrg: null });
  });

  it("refuses dropping a held report to callers that may not write it, which keeps it", async () => {
    const pendingWs = randomUUID();
    await call(engine.client, "reportResource", report("t-held-3", pendingWs), await as("hbi-mine", "tenancy-mine"));
    expect((await rejection(call(engine.client, "deleteResource", { reference: host("t-held-3") }, await as("random-client", "tenancy-mine")))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(call(engine.client, "deleteResource", { reference: host("t-held-3") }, await as("other-app", null)))).code).toBe(status.PERMISSION_DENIED);
    expect(await store.placements.get("hbi/host", "t-held-3")).toMatchObject({ workspaceId: pendingWs });
    await call(engine.client, "deleteResource", { reference: host("t-held-3") }, await as("hbi-mine", "tenancy-mine"));
    expect(await store.placements.get("hbi/host", "t-held-3")).toBeFalsy();
  });
});

describe("write tenancy of KesselTupleService", () => {
  let tuples: relations.KesselTupleServiceClient;
  beforeAll(() => {
    tuples = new relations.KesselTupleServiceClient(`127.0.0.1:${engine.port}`, credentials.createInsecure());
  });
  afterAll(() => tuples?.close());

  function rpc<Res>(method: "createTuples" | "deleteTuples" | "acquireLock", request: object, metadata: Metadata): Promise<Res> {
    const fn = tuples[method] as unknown as (r: object, m: Metadata, cb: (e: ServiceError | null, res: Res) => void) => void;
    return new Promise((resolve, reject) => fn.call(tuples, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
  }
  const ref = (namespace: string, name: string, id: string) => ({ type: { namespace, name }, id });
  const createRequest = (type: [string, string], id: string) =>
    relations.CreateTuplesRequest.fromPartial({ tuples: [{ resource: ref(type[0], type[1], id), relation: "parent", subject: { subject: ref("rbac", "tenant", "redhat/repl-org") } }] });
  const stored = async (id: string) => (await store.replicated.read({ resourceId: id })).length;

  it("lets only a reporter allowed into every organisation replicate tuples, of its registered types", async () => {
    const id = `t-repl-${randomUUID()}`;
    for (const [client, org] of [
      ["random-client", "tenancy-mine"],
      ["hbi-mine", "tenancy-mine"],
      ["other-app", null],
    ] as const) {
      const error = await rejection(rpc("createTuples", createRequest(["rbac", "workspace"], id), await as(client, org)));
      expect(error.code, client).toBe(status.PERMISSION_DENIED);
    }
    expect(await stored(id)).toBe(0);
    await rpc("createTuples", createRequest(["rbac", "workspace"], id), await as("rbac-replicator", null));
    expect(await stored(id)).toBe(1);
    // other-app may replicate its own type only.
    await rpc("createTuples", createRequest(["acm", "cluster"], `${id}-c`), await as("other-app", null));
    expect(await stored(`${id}-c`)).toBe(1);
  });

  it("refuses deletes and locks to callers that may not replicate, which change nothing", async () => {
    const id = `t-repl-${randomUUID()}`;
    await rpc("createTuples", createRequest(["rbac", "workspace"], id), await as("rbac-replicator", null));
    const byId = relations.DeleteTuplesRequest.fromPartial({ filter: { resourceId: id } });
    const byType = relations.DeleteTuplesRequest.fromPartial({ filter: { resourceNamespace: "rbac", resourceType: "workspace", resourceId: id } });
    expect((await rejection(rpc("deleteTuples", byId, await as("hbi-mine", "tenancy-mine")))).code).toBe(status.PERMISSION_DENIED);
    // No resource type in the filter: every type, which other-app may not touch.
    expect((await rejection(rpc("deleteTuples", byId, await as("other-app", null)))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(rpc("deleteTuples", byType, await as("other-app", null)))).code).toBe(status.PERMISSION_DENIED);
    expect((await rejection(rpc("acquireLock", { lockId: "t-lock" }, await as("hbi-global", null)))).code).toBe(status.PERMISSION_DENIED);
    expect(await stored(id)).toBe(1);
    await rpc("deleteTuples", byType, await as("rbac-replicator", null));
    expect(await stored(id)).toBe(0);
  });

  async function readAs(filter: Partial<relations.RelationTupleFilter>, metadata: Metadata): Promise<relations.ReadTuplesResponse[]> {
    const out: relations.ReadTuplesResponse[] = [];
    for await (const item of tuples.readTuples(relations.ReadTuplesRequest.fromPartial({ filter }), metadata)) out.push(item as relations.ReadTuplesResponse);
    return out;
  }

  it("scopes ReadTuples to what the caller may replicate: no reads for others, no other replicator's types, never a lock token", async () => {
    const id = `t-read-${randomUUID()}`;
    await rpc("createTuples", createRequest(["rbac", "workspace"], id), await as("rbac-replicator", null));
    await rpc("createTuples", createRequest(["acm", "cluster"], id), await as("other-app", null));
    await rpc("acquireLock", { lockId: id }, await as("rbac-replicator", null));
    const everything = { resourceId: id };
    for (const [client, org] of [
      ["random-client", "tenancy-mine"],
      ["hbi-mine", "tenancy-mine"],
    ] as const) {
      expect((await rejection(readAs(everything, await as(client, org)))).code, client).toBe(status.PERMISSION_DENIED);
    }
    const seenByOther = await readAs(everything, await as("other-app", null));
    expect(seenByOther.map((t) => t.tuple?.resource?.type?.name)).toEqual(["cluster"]);
    expect((await rejection(readAs({ resourceNamespace: "rbac", resourceType: "workspace", resourceId: id }, await as("other-app", null)))).code).toBe(status.PERMISSION_DENIED);
    const seenByReplicator = await readAs(everything, await as("rbac-replicator", null));
    expect(seenByReplicator.map((t) => t.tuple?.resource?.type?.name).sort()).toEqual(["cluster", "workspace"]);
  });
});
