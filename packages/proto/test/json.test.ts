import { describe, expect, it } from "vitest";
import { Allowed, CheckBulkResponse, CheckRequest, CheckResponse, inventoryTuples, protoJsonCodec, ProtoJsonError, ReportResourceRequest } from "../src/index.js";

const checkRequest = protoJsonCodec("kessel.inventory.v1beta2.CheckRequest", CheckRequest);
const checkResponse = protoJsonCodec("kessel.inventory.v1beta2.CheckResponse", CheckResponse);

describe("protobuf JSON (as protojson: DiscardUnknown on read, EmitUnpopulated on write)", () => {
  it("reads lowerCamelCase and proto names alike, ignores unknown fields", () => {
    const message = checkRequest.read({
      object: { resourceType: "workspace", resource_id: "w1", reporter: { type: "rbac" } },
      relation: "view",
      subject: { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } },
      somethingElse: [1, 2, 3],
    });
    expect(message.object).toEqual({ resourceType: "workspace", resourceId: "w1", reporter: { type: "rbac" } });
    expect(message.subject?.resource?.resourceId).toBe("redhat/alice");
  });

  it("refuses wrong types where ts-proto's fromJSON would coerce them", () => {
    expect(CheckRequest.fromJSON({ relation: 5 }).relation).toBe("5");
    expect(() => checkRequest.read({ relation: 5 })).toThrow(ProtoJsonError);
    expect(() => checkRequest.read({ object: "workspace" })).toThrow(ProtoJsonError);
    expect(() => checkRequest.read([])).toThrow(ProtoJsonError);
    expect(() => checkRequest.read({ consistency: { minimizeLatency: "yes" } })).toThrow(ProtoJsonError);
  });

  it("writes enums by name, defaults, and unset message fields as null", () => {
    expect(checkResponse.write({ allowed: Allowed.ALLOWED_TRUE, consistencyToken: { token: "t" } })).toEqual({ allowed: "ALLOWED_TRUE", consistencyToken: { token: "t" } });
    expect(checkResponse.write({ allowed: Allowed.ALLOWED_UNSPECIFIED })).toEqual({ allowed: "ALLOWED_UNSPECIFIED", consistencyToken: null });
  });

  it("writes a oneof only when set, and google.rpc.Status with its details list", () => {
    const bulk = protoJsonCodec("kessel.inventory.v1beta2.CheckBulkResponse", CheckBulkResponse);
    const json = bulk.write({ pairs: [{ error: { code: 3, message: "bad", details: [] } }], consistencyToken: { token: "t" } });
    expect(json).toEqual({ pairs: [{ request: null, error: { code: 3, message: "bad", details: [] } }], consistencyToken: { token: "t" } });
  });

  it("reads google.protobuf.Struct as any JSON object", () => {
    const report = protoJsonCodec("kessel.inventory.v1beta2.ReportResourceRequest", ReportResourceRequest);
    const message = report.read({ type: "host", representations: { common: { workspace_id: "w1", nested: { n: 1 } } } });
    expect(message.representations?.common).toEqual({ workspace_id: "w1", nested: { n: 1 } });
  });

  it("knows kessel.inventory.v1beta2's tuple messages (consistency_token is field 1 there)", () => {
    const response = protoJsonCodec("kessel.inventory.v1beta2.CreateTuplesResponse", inventoryTuples.CreateTuplesResponse);
    const bytes = inventoryTuples.CreateTuplesResponse.encode({ consistencyToken: { token: "t" } }).finish();
    expect([...bytes.slice(0, 1)]).toEqual([0x0a]);
    expect(response.write({ consistencyToken: { token: "t" } })).toEqual({ consistencyToken: { token: "t" } });
  });
});
