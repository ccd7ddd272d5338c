// Invalid UTF-8 in a gRPC string field (an encoded unpaired surrogate, an overlong form, a stray
// byte) is refused with INVALID_ARGUMENT naming the field, never decoded to U+FFFD and used; a
// refused write changes nothing.
import { readFileSync } from "node:fs";
import { Client, credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { Allowed, KesselInventoryServiceService, relations, WriteVisibility } from "@gatehouse/proto";
import type { Tenant } from "@gatehouse/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, principal, readGrant, startEngine, type RunningEngine } from "./helpers.js";

const cases = JSON.parse(readFileSync(new URL("./cases/text/malformed-utf8.json", import.meta.url), "utf8")) as {
  sequences: Record<string, number[]>;
  fields: Array<{ service: "inventory" | "tuples"; method: string; field: string; write?: boolean }>;
};
const MARK = "@@@";

let engine: RunningEngine;
let tenant: Tenant;
let raw: Client;
beforeAll(async () => {
  engine = await startEngine();
  tenant = (await engine.store.tenants.bootstrap("utf8-org")).value;
  await engine.store.relationships.write("utf8-org", { touch: readGrant(tenant.defaultWorkspaceId, "alice") });
  raw = new Client(`127.0.0.1:${engine.port}`, credentials.createInsecure());
});
afterAll(async () => {
  raw?.close();
  await engine?.close();
});

/** A valid request of the method with MARK in the named field (every other field valid). */
function requestWithMark(method: string, field: string): object {
  const at = (name: string) => (field === name ? MARK : undefined);
  switch (method) {
    case "check":
      return {
        object: { resourceType: "workspace", resourceId: at("object.resource_id") ?? tenant.defaultWorkspaceId, reporter: { type: "rbac" } },
        relation: at("relation") ?? "view",
        subject: { resource: { ...principal("alice"), resourceId: at("subject.resource.resource_id") ?? "redhat/alice" } },
      };
    case "reportResource":
      return {
        type: "host",
        reporterType: "hbi",
        reporterInstanceId: "hbi-1",
        representations: {
          metadata: { localResourceId: at("representations.metadata.local_resource_id") ?? "h-utf8", apiHref: "https://hbi/h" },
          common: { workspace_id: at("representations.common.workspace_id") ?? tenant.defaultWorkspaceId },
        },
        writeVisibility: WriteVisibility.IMMEDIATE,
      };
    case "deleteResource":
      return { reference: { resourceType: "host", resourceId: MARK, reporter: { type: "hbi" } } };
    case "createTuples":
      return {
        upsert: true,
        tuples: [{ resource: { type: { namespace: "hbi", name: "host" }, id: MARK }, relation: "t_workspace", subject: { subject: { type: { namespace: "rbac", name: "workspace" }, id: "w1" } } }],
      };
    default:
      throw new Error(`no request for ${method}`);
  }
}

/** Sends the request with the marker's bytes replaced by `bad`, as a client that does not check UTF-8 would. */
function sendRaw(service: "inventory" | "tuples", method: string, request: object, bad: number[]): Promise<ServiceError | null> {
  const definition = (service === "inventory" ? KesselInventoryServiceService : relations.KesselTupleServiceService) as unknown as Record<
    string,
    { path: string; requestSerialize(value: object): Buffer; responseDeserialize(bytes: Buffer): unknown }
  >;
  const method_ = definition[method]!;
  const serialize = (value: object) => {
    const bytes = method_.requestSerialize(value);
    const at = bytes.indexOf(MARK);
    if (at < 0) throw new Error("marker not encoded");
    Buffer.from(bad).copy(bytes, at);
    return bytes;
  };
  return new Promise((resolve) => raw.makeUnaryRequest(method_.path, serialize, method_.responseDeserialize, request, new Metadata(), (error) => resolve(error)));
}

describe.each(Object.entries(cases.sequences))("%s", (_name, bad) => {
  it.each(cases.fields.map((f) => [`${f.method} ${f.field}`, f] as const))("in %s: INVALID_ARGUMENT naming the field, nothing changed", async (_label, f) => {
    const head = await engine.store.feed.headRevision();
    const error = await sendRaw(f.service, f.method, requestWithMark(f.method, f.field), bad);
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.details).toContain(f.field);
    expect(error?.details).toContain("UTF-8");
    if (f.write) expect(await engine.store.feed.headRevision()).toBe(head);
  });
});

it("the same requests with the marker left as valid text are accepted (the cases test only the bytes)", async () => {
  const ok = await sendRaw("inventory", "check", requestWithMark("check", "object.resource_id"), [...Buffer.from("abc")]);
  expect(ok).toBeNull();
  expect(
    (
      await call(engine.client, "check", {
        object: { resourceType: "workspace", resourceId: tenant.defaultWorkspaceId, reporter: { type: "rbac" } },
        relation: "view",
        subject: { resource: principal("alice") },
      })
    ).allowed,
  ).toBe(Allowed.ALLOWED_TRUE);
});
