// Hostile gRPC input: oversized fields are refused by validation and never echoed back, so one
// caller's string cannot break the status header of a shared channel.
import { status } from "@grpc/grpc-js";
import { Allowed, WriteVisibility } from "@gatehouse/proto";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, readGrant, rejection, startEngine, workspace, type RunningEngine } from "./helpers.js";

let engine: RunningEngine;
let tenant: Tenant;

beforeAll(async () => {
  engine = await startEngine();
  tenant = (await engine.store.tenants.bootstrap("hostile-org")).value;
  const { revision } = await engine.store.relationships.write("hostile-org", { touch: readGrant(tenant.defaultWorkspaceId, "alice") });
  await call(engine.client, "check", {
    object: workspace(tenant.defaultWorkspaceId),
    relation: "view",
    subject: { resource: principal("alice") },
    consistency: { atLeastAsFresh: { token: engine.store.tokens.encode(revision) } },
  });
});
afterAll(async () => {
  await engine?.close();
});

const huge = "x".repeat(100_000);
const healthyCheck = () => call(engine.client, "check", { object: workspace(tenant.defaultWorkspaceId), relation: "view", subject: { resource: principal("alice") } });
const report = (id: string, ws: string) => ({
  type: "host",
  reporterType: "hbi",
  reporterInstanceId: "hbi-instance",
  representations: { metadata: { localResourceId: id, apiHref: "https://hbi/hosts/x" }, common: { workspace_id: ws } },
  writeVisibility: WriteVisibility.IMMEDIATE,
});

describe("oversized fields", () => {
  const cases: Array<[string, () => Promise<unknown>, string]> = [
    ["a Check resource id", () => call(engine.client, "check", { object: workspace(huge), relation: "view", subject: { resource: principal("alice") } }), "object.resource_id"],
    [
      "a Check subject id",
      () => call(engine.client, "check", { object: workspace("w"), relation: "view", subject: { resource: { ...principal("a"), resourceId: huge } } }),
      "subject.resource.resource_id",
    ],
    ["a Check relation", () => call(engine.client, "check", { object: workspace("w"), relation: huge, subject: { resource: principal("alice") } }), "relation"],
    ["a subject relation", () => call(engine.client, "check", { object: workspace("w"), relation: "view", subject: { resource: principal("alice"), relation: huge } }), "subject.relation"],
    [
      "a resource type",
      () => call(engine.client, "check", { object: { ...workspace("w"), resourceType: "a".repeat(100_000) }, relation: "view", subject: { resource: principal("alice") } }),
      "object.resource_type",
    ],
    [
      "a consistency token",
      () => call(engine.client, "check", { object: workspace("w"), relation: "view", subject: { resource: principal("alice") }, consistency: { atLeastAsFresh: { token: huge } } }),
      "consistency.at_least_as_fresh.token",
    ],
    ["a reported local resource id", () => call(engine.client, "reportResource", report(huge, tenant.defaultWorkspaceId)), "representations.metadata.local_resource_id"],
    ["a reported workspace id", () => call(engine.client, "reportResource", report("h1", huge)), "representations.common.workspace_id"],
    ["a reporter instance id", () => call(engine.client, "reportResource", { ...report("h1", tenant.defaultWorkspaceId), reporterInstanceId: huge }), "reporter_instance_id"],
    ["a deleted resource id", () => call(engine.client, "deleteResource", { reference: { resourceType: "host", resourceId: huge, reporter: { type: "hbi" } } }), "reference.resource_id"],
  ];

  it.each(cases)("refuses %s with a short INVALID_ARGUMENT and keeps the channel usable", async (_name, run, field) => {
    const error = await rejection(run());
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details.length).toBeLessThan(300);
    expect(error.details).toContain(field);
    expect(error.details).not.toContain("xxxxxxxxxx");
    expect((await healthyCheck()).allowed).toBe(Allowed.ALLOWED_TRUE);
  });

  it("accepts fields at upstream's limits", async () => {
    const id = "h".repeat(128);
    await call(engine.client, "reportResource", report(id, tenant.defaultWorkspaceId));
    const allowed = await call(engine.client, "check", {
      object: { resourceType: "host", resourceId: id, reporter: { type: "hbi" } },
      relation: "view",
      subject: { resource: principal("alice") },
    });
    expect(allowed.allowed).toBe(Allowed.ALLOWED_TRUE);
  });
});
