import { describe, expect, it } from "vitest";
import { Allowed, CheckBulkResponse, CheckRequest, CheckResponse, KesselInventoryServiceService, ReportResourceRequest, StreamedListObjectsRequest, WriteVisibility } from "../src/index.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const ascii = (s: string) => Buffer.from(s, "utf8").toString("hex");

describe("wire format matches the kessel v1beta2 contract", () => {
  it("decodes the exact Check bytes SDK 3.3.1 sends", () => {
    // From the contract: object workspace "ws-default-1" rbac, relation "view", subject principal "redhat/alice" rbac.
    const objectRef = `0a09${ascii("workspace")}120c${ascii("ws-default-1")}1a060a04${ascii("rbac")}`;
    const principalRef = `0a09${ascii("principal")}120c${ascii("redhat/alice")}1a060a04${ascii("rbac")}`;
    const wire = `0a21${objectRef}1204${ascii("view")}1a231221${principalRef}`;
    const decoded = CheckRequest.decode(Buffer.from(wire, "hex"));
    expect(decoded.object).toEqual({ resourceType: "workspace", resourceId: "ws-default-1", reporter: { type: "rbac" } });
    expect(decoded.relation).toBe("view");
    expect(decoded.subject?.relation).toBeUndefined();
    expect(decoded.subject?.resource?.resourceId).toBe("redhat/alice");
    expect(decoded.consistency).toBeUndefined();
    // Round trip gives the same bytes (field order and presence rules agree).
    expect(hex(CheckRequest.encode(decoded).finish())).toBe(wire);
  });

  it("keeps present-but-empty optional strings distinguishable from absent ones", () => {
    const withEmptyToken = StreamedListObjectsRequest.encode({
      objectType: { resourceType: "workspace", reporterType: "rbac" },
      relation: "view",
      subject: { resource: { resourceType: "principal", resourceId: "redhat/a", reporter: { type: "rbac" } } },
      pagination: { limit: 1000, continuationToken: "" },
    }).finish();
    expect(hex(withEmptyToken).endsWith("220508e8071200")).toBe(true);
    const decoded = StreamedListObjectsRequest.decode(withEmptyToken);
    expect(decoded.pagination).toEqual({ limit: 1000, continuationToken: "" });
    // limit 1000 alone is field 4 = {08 e8 07}, as the SDK's first listWorkspaces page sends.
    const firstPage = StreamedListObjectsRequest.encode({ relation: "view", pagination: { limit: 1000 } }).finish();
    expect(hex(firstPage).endsWith("220308e807")).toBe(true);
  });

  it("puts the consistency token in field 2 of CheckResponse and pairs in CheckBulkResponse field 1", () => {
    const bytes = CheckResponse.encode({ allowed: Allowed.ALLOWED_TRUE, consistencyToken: { token: "t" } }).finish();
    expect(hex(bytes)).toBe(`080112030a01${ascii("t")}`);
    const bulk = CheckBulkResponse.encode({
      pairs: [{ request: { relation: "v" }, error: { code: 3, message: "bad", details: [] } }],
    }).finish();
    const back = CheckBulkResponse.decode(bulk);
    expect(back.pairs[0]?.error?.code).toBe(3);
    expect(back.pairs[0]?.item).toBeUndefined();
  });

  it("carries Struct representations as plain objects", () => {
    const req = {
      type: "host",
      reporterType: "hbi",
      reporterInstanceId: "hbi-1",
      representations: {
        metadata: { localResourceId: "h1", apiHref: "https://x/h1" },
        common: { workspace_id: "ws-1" },
        reporter: { satellite_id: null, n: 2 },
      },
      writeVisibility: WriteVisibility.IMMEDIATE,
    };
    const back = ReportResourceRequest.decode(ReportResourceRequest.encode(req).finish());
    expect(back.representations?.common).toEqual({ workspace_id: "ws-1" });
    expect(back.representations?.reporter).toEqual({ satellite_id: null, n: 2 });
    expect(back.writeVisibility).toBe(WriteVisibility.IMMEDIATE);
  });

  it("serves every RPC under the upstream method paths", () => {
    const paths = Object.values(KesselInventoryServiceService)
      .map((m) => m.path)
      .sort();
    expect(paths).toEqual(
      ["Check", "CheckBulk", "CheckForUpdate", "CheckForUpdateBulk", "CheckSelf", "CheckSelfBulk", "DeleteResource", "ReportResource", "StreamedListObjects", "StreamedListSubjects"].map(
        (rpc) => `/kessel.inventory.v1beta2.KesselInventoryService/${rpc}`,
      ),
    );
    expect(KesselInventoryServiceService.streamedListObjects.responseStream).toBe(true);
    expect(KesselInventoryServiceService.streamedListSubjects.responseStream).toBe(true);
  });
});
