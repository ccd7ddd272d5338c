// The calls of every gRPC example of kessel-sdk-node (examples/builder, examples/vanilla and
// examples/rbac/list_workspaces, identical at v3.3.1 — the SDK version used here — and at HEAD),
// made with the npm SDK with the same input shapes, against a real engine. Each example's own
// success path must be taken: no call-level error, the response fields the example prints present.
// The examples target a development schema with widget permissions (view_widget, use_widget,
// view_document); the engine runs the stage schema with such permissions added (below).
import { promisify } from "node:util";
import { ChannelCredentials } from "@grpc/grpc-js";
import { ClientBuilder } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2";
import { KesselInventoryServiceClient } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/inventory_service";
import type { CheckBulkRequest, CheckBulkRequestItem } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/check_bulk_request";
import type { CheckBulkResponse } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/check_bulk_response";
import type { CheckForUpdateRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/check_for_update_request";
import type { CheckRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/check_request";
import type { DeleteResourceRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/delete_resource_request";
import type { RepresentationMetadata } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/representation_metadata";
import type { RepresentationType } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/representation_type";
import type { ReportResourceRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/report_resource_request";
import type { ResourceReference } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/resource_reference";
import type { ResourceRepresentations } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/resource_representations";
import type { StreamedListObjectsRequest } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/streamed_list_objects_request";
import type { StreamedListObjectsResponse } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/streamed_list_objects_response";
import type { SubjectReference } from "@project-kessel/kessel-sdk/kessel/inventory/v1beta2/subject_reference";
import { listWorkspaces, principalSubject, workspaceResource } from "@project-kessel/kessel-sdk/kessel/rbac/v2";
import type { Relationship } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childWorkspace, stageSchema, startEngine, type RunningEngine } from "./helpers.js";

const ALLOWED_TRUE = 1;
const ALLOWED_FALSE = 2;
const ORG = "sdk-examples";

/** The stage schema plus the examples' widget and document permissions, granted like any other. */
function withExamplePermissions(schema: string): string {
  const names = ["view_widget", "use_widget", "view_document"];
  const add = (definition: string, lines: (name: string) => string[]) => (text: string) =>
    text.replace(
      `definition ${definition} {\n`,
      `definition ${definition} {\n${names
        .flatMap(lines)
        .map((l) => `\t${l}\n`)
        .join("")}`,
    );
  return [
    add("rbac/role", (n) => [`permission ${n} = t_${n}`, `relation t_${n}: rbac/principal:*`]),
    add("rbac/role_binding", (n) => [`permission ${n} = (subject & t_role->${n})`]),
    add("rbac/tenant", (n) => [`permission ${n} = t_binding->${n}`]),
    add("rbac/workspace", (n) => [`permission ${n} = t_binding->${n} + t_parent->${n}`]),
  ].reduce((text, edit) => edit(text), schema);
}

const tuple = (resourceType: string, resourceId: string, relation: string, subjectType: string, subjectId: string): Relationship => ({ resourceType, resourceId, relation, subjectType, subjectId });

/** A role with one permission, bound to one principal on one workspace. */
function grant(workspaceId: string, principalId: string, permission: string): Relationship[] {
  const role = `role-${permission}`;
  const binding = `b-${workspaceId}-${principalId}-${permission}`.replace(/\//g, "_");
  return [
    tuple("rbac/role", role, `t_${permission}`, "rbac/principal", "*"),
    tuple("rbac/role_binding", binding, "t_role", "rbac/role", role),
    tuple("rbac/role_binding", binding, "t_subject", "rbac/principal", principalId),
    tuple("rbac/workspace", workspaceId, "t_binding", "rbac/role_binding", binding),
  ];
}

// The examples' inputs, verbatim.
const subjectReference: SubjectReference = { resource: { reporter: { type: "rbac" }, resourceId: "foobar", resourceType: "principal" } };
const resource: ResourceReference = { reporter: { type: "rbac" }, resourceId: "1234", resourceType: "workspace" };
const checkRequest: CheckRequest = { object: resource, relation: "inventory_host_view", subject: subjectReference };
const checkForUpdateRequest: CheckForUpdateRequest = { object: resource, relation: "inventory_host_view", subject: subjectReference };
const bulkItem1: CheckBulkRequestItem = { object: workspaceResource("workspace_123"), relation: "view_widget", subject: principalSubject("bob", "redhat") };
const bulkItem2: CheckBulkRequestItem = { object: workspaceResource("workspace_456"), relation: "use_widget", subject: principalSubject("bob", "redhat") };
const bulkItem3: CheckBulkRequestItem = {
  object: { reporter: { type: "rbac" }, resourceId: "invalid_resource", resourceType: "not_a_valid_type" },
  relation: "view_widget",
  subject: principalSubject("alice", "redhat"),
};
const checkBulkRequest: CheckBulkRequest = { items: [bulkItem1, bulkItem2, bulkItem3] };
const deleteResourceRequest: DeleteResourceRequest = {
  reference: { resourceType: "host", resourceId: "854589f0-3be7-4cad-8bcd-45e18f33cb81", reporter: { type: "HBI" } },
};
const REPORTED_WORKSPACE = "6eb10953-4ec9-4feb-838f-ba43a60880bf";
const metadata: RepresentationMetadata = {
  localResourceId: "854589f0-3be7-4cad-8bcd-45e18f33cb81",
  apiHref: "https://apiHref.com/",
  consoleHref: "https://www.consoleHref.com/",
  reporterVersion: "0.2.11",
};
const representations: ResourceRepresentations = {
  metadata,
  common: { workspace_id: REPORTED_WORKSPACE },
  reporter: {
    satellite_id: "ca234d8f-9861-4659-a033-e80460b2801c",
    sub_manager_id: "e9b7d65f-3f81-4c26-b86c-2db663376eed",
    insights_inventory_id: "c4b9b5e7-a82a-467a-b382-024a2f18c129",
    ansible_host: "host-1",
  },
};
const reportResourceRequest: ReportResourceRequest = { type: "host", reporterType: "hbi", reporterInstanceId: "0a2a430e-1ad9-4304-8e75-cc6fd3b5441a", representations };
const representationType: RepresentationType = { resourceType: "workspace", reporterType: "rbac" };
const streamedListObjectsRequest: StreamedListObjectsRequest = { objectType: representationType, relation: "inventory_host_view", subject: subjectReference };

let engine: RunningEngine;
let endpoint: string;
let builder: ReturnType<InstanceType<typeof ClientBuilder>["buildAsync"]>;
let stub: KesselInventoryServiceClient;

const hostVisibleToFoobar = async (): Promise<number> =>
  (
    await builder.checkForUpdate({
      object: { resourceType: "host", resourceId: metadata.localResourceId, reporter: { type: "hbi" } },
      relation: "view",
      subject: subjectReference,
    })
  ).allowed;

beforeAll(async () => {
  engine = await startEngine({ schemaText: withExamplePermissions(stageSchema) });
  const tenant = (await engine.store.tenants.bootstrap(ORG)).value;
  await engine.store.relationships.write(ORG, {
    touch: [
      ...["1234", "workspace_123", "workspace_456"].map((id) => childWorkspace(id, tenant.defaultWorkspaceId)),
      ...grant("1234", "foobar", "inventory_hosts_read"),
      ...grant("workspace_123", "redhat/bob", "view_widget"),
      ...grant("workspace_456", "redhat/bob", "use_widget"),
      ...grant("workspace_456", "redhat/alice", "view_document"),
    ],
  });
  endpoint = `127.0.0.1:${engine.port}`;
  builder = new ClientBuilder(endpoint).insecure().buildAsync();
  stub = new KesselInventoryServiceClient(endpoint, ChannelCredentials.createInsecure(), {});
  // The examples use the default consistency; wait once for the seed to be applied.
  await builder.checkForUpdate(checkForUpdateRequest);
});

afterAll(async () => {
  stub?.close();
  await engine?.close();
});

function expectBulkPairs(response: CheckBulkResponse): void {
  expect(response.pairs).toHaveLength(3);
  const [first, second, third] = response.pairs ?? [];
  expect(first?.request?.subject?.resource?.resourceId).toBe("redhat/bob");
  expect(first?.item?.allowed).toBe(ALLOWED_TRUE);
  expect(second?.item?.allowed).toBe(ALLOWED_TRUE);
  // "Check with invalid resource type to demonstrate error handling": a per-item error.
  expect(third?.item).toBeUndefined();
  expect(third?.error?.code).toBe(3);
  expect(third?.error?.message).toMatch(/not_a_valid_type/);
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

describe("kessel-sdk-node examples/builder", () => {
  it("check.ts", async () => {
    const response = await builder.check(checkRequest);
    expect(response.allowed).toBe(ALLOWED_TRUE);
  });

  it("check_for_update.ts", async () => {
    const response = await builder.checkForUpdate(checkForUpdateRequest);
    expect(response.allowed).toBe(ALLOWED_TRUE);
  });

  it("check_bulk.ts", async () => {
    expectBulkPairs(await builder.checkBulk(checkBulkRequest));
  });

  it("streamed_list_objects.ts", async () => {
    const items: StreamedListObjectsResponse[] = await collect(builder.streamedListObjects(streamedListObjectsRequest) as AsyncIterable<StreamedListObjectsResponse>);
    expect(items.map((i) => i.object?.resourceId)).toContain("1234");
  });

  it("report_resource.ts into a workspace not created yet, then delete_resource.ts (reporter type HBI)", async () => {
    expect(await builder.reportResource(reportResourceRequest)).toEqual({});
    expect(await hostVisibleToFoobar()).toBe(ALLOWED_FALSE);
    // The workspace appears (as the management plane replicates it): the host is reachable.
    await engine.store.relationships.write(ORG, { touch: [childWorkspace(REPORTED_WORKSPACE, "1234")] });
    expect(await hostVisibleToFoobar()).toBe(ALLOWED_TRUE);
    expect(await builder.deleteResource(deleteResourceRequest)).toEqual({});
    expect(await hostVisibleToFoobar()).toBe(ALLOWED_FALSE);
  });
});

describe("kessel-sdk-node examples/vanilla", () => {
  it("check.ts and promisify.ts", async () => {
    const response = await new Promise((resolve, reject) => stub.check(checkRequest, (error, res) => (error ? reject(error) : resolve(res))));
    expect(response).toMatchObject({ allowed: ALLOWED_TRUE });
    const check = promisify(stub.check.bind(stub)) as unknown as (request: CheckRequest) => Promise<{ allowed: number }>;
    expect((await check(checkRequest)).allowed).toBe(ALLOWED_TRUE);
    const items = await collect(stub.streamedListObjects(streamedListObjectsRequest) as AsyncIterable<StreamedListObjectsResponse>);
    expect(items.map((i) => i.object?.resourceId)).toContain("1234");
  });

  it("check_for_update.ts", async () => {
    const response = await new Promise((resolve, reject) => stub.checkForUpdate(checkForUpdateRequest, (error, res) => (error ? reject(error) : resolve(res))));
    expect(response).toMatchObject({ allowed: ALLOWED_TRUE });
  });

  it("check_bulk.ts (reads response.pairs in the callback, so the call itself must succeed)", async () => {
    const response = await new Promise<CheckBulkResponse>((resolve, reject) => stub.checkBulk(checkBulkRequest, (error, res) => (res?.pairs ? resolve(res) : reject(error))));
    expectBulkPairs(response);
  });

  it("streamed_list_objects.ts (stream.forEach)", async () => {
    const seen: string[] = [];
    const stream = stub.streamedListObjects(streamedListObjectsRequest);
    await stream.forEach((response: StreamedListObjectsResponse) => {
      seen.push(response.object?.resourceId ?? "");
    });
    expect(seen).toContain("1234");
  });

  it("report_resource.ts and delete_resource.ts", async () => {
    const unary = <Req, Res>(fn: (request: Req, callback: (error: Error | null, response: Res) => void) => unknown, request: Req) =>
      new Promise<Res>((resolve, reject) => fn.call(stub, request, (error, response) => (error ? reject(error) : resolve(response))));
    expect(await unary(stub.reportResource, reportResourceRequest)).toEqual({});
    expect(await hostVisibleToFoobar()).toBe(ALLOWED_TRUE);
    expect(await unary(stub.deleteResource, deleteResourceRequest)).toEqual({});
    expect(await hostVisibleToFoobar()).toBe(ALLOWED_FALSE);
  });
});

describe("kessel-sdk-node examples/rbac", () => {
  it("list_workspaces.ts: one by one, then collected with minimize_latency", async () => {
    const lazily = await collect(listWorkspaces(builder, principalSubject("alice", "redhat"), "view_document"));
    expect(lazily.map((r) => r.object?.resourceId)).toEqual(["workspace_456"]);
    // HEAD's second call passes `{ consistency: { minimizeLatency: true } }` to listWorkspaces, a
    // form SDK 3.3.1 does not have: send the request that HEAD's listWorkspaces builds for it.
    const all: StreamedListObjectsResponse[] = await collect(
      builder.streamedListObjects({
        objectType: { resourceType: "workspace", reporterType: "rbac" },
        relation: "view_document",
        subject: principalSubject("alice", "redhat"),
        pagination: { limit: 1000, continuationToken: undefined },
        consistency: { minimizeLatency: true },
      }) as AsyncIterable<StreamedListObjectsResponse>,
    );
    expect(all.map((r) => r.object?.resourceId)).toEqual(["workspace_456"]);
  });
});
