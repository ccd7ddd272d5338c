import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, firstIndexAfter } from "../src/commands/cursor.js";
import { resolveConfig } from "../src/config.js";
import { EngineError } from "../src/errors.js";
import { bulkItems, consistency, pagination, representationType, resourceRef, subjectRef } from "../src/grpc/validation.js";

function violation(run: () => unknown): { field: string; rule: string } | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof EngineError) return error.violation;
    throw error;
  }
  throw new Error("expected a violation");
}

describe("request validation (contract §3 rules)", () => {
  it("maps references to <reporter>/<type> definitions and keeps principal ids literal", () => {
    expect(resourceRef({ resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } }, "subject.resource")).toEqual({
      type: "rbac/principal",
      id: "redhat/alice",
    });
  });

  it("names the field and the rule of each violation", () => {
    expect(violation(() => resourceRef(undefined, "object"))).toEqual({ field: "object", rule: "required" });
    expect(violation(() => resourceRef({ resourceType: "", resourceId: "x", reporter: { type: "rbac" } }, "object"))).toEqual({
      field: "object.resource_type",
      rule: "string.min_len",
    });
    expect(violation(() => resourceRef({ resourceType: "work space", resourceId: "x", reporter: { type: "rbac" } }, "object"))).toEqual({
      field: "object.resource_type",
      rule: "string.pattern",
    });
    expect(violation(() => resourceRef({ resourceType: "workspace", resourceId: "", reporter: { type: "rbac" } }, "object"))).toEqual({
      field: "object.resource_id",
      rule: "string.min_len",
    });
    expect(violation(() => resourceRef({ resourceType: "workspace", resourceId: "x" }, "object"))).toEqual({ field: "object.reporter", rule: "required" });
    expect(violation(() => representationType({ resourceType: "workspace", reporterType: "" }, "object_type"))).toEqual({
      field: "object_type.reporter_type",
      rule: "string.min_len",
    });
    expect(violation(() => resourceRef({ resourceType: "w", resourceId: "x", reporter: { type: "rbac", instanceId: "9bad" } }, "o"))).toEqual({
      field: "o.reporter.instance_id",
      rule: "string.uuid_or_name",
    });
  });

  it("treats present-but-empty optional strings as absent where the contract says so", () => {
    const ref = { resourceType: "principal", resourceId: "redhat/a", reporter: { type: "rbac", instanceId: "" } };
    expect(subjectRef({ resource: ref, relation: "" }, "subject")).toEqual({ type: "rbac/principal", id: "redhat/a" });
    expect(subjectRef({ resource: ref, relation: "member" }, "subject").relation).toBe("member");
    expect(pagination({ limit: 10, continuationToken: "" }, "pagination")).toEqual({ limit: 10 });
  });

  it("validates consistency and pagination", () => {
    expect(consistency(undefined, "consistency", { allowAcknowledged: false })).toEqual({ kind: "minimize-latency" });
    expect(consistency({ atLeastAsFresh: { token: "t" } }, "c", { allowAcknowledged: false })).toEqual({ kind: "at-least-as-fresh", token: "t" });
    expect(violation(() => consistency({}, "consistency", { allowAcknowledged: true }))?.rule).toBe("oneof.required");
    expect(violation(() => consistency({ minimizeLatency: false }, "consistency", { allowAcknowledged: true }))?.rule).toBe("bool.const");
    expect(violation(() => consistency({ atLeastAsFresh: { token: "" } }, "consistency", { allowAcknowledged: true }))?.field).toBe("consistency.at_least_as_fresh.token");
    expect(violation(() => consistency({ atLeastAsAcknowledged: true }, "consistency", { allowAcknowledged: false }))?.rule).toBe("consistency.unsupported");
    expect(consistency({ atLeastAsAcknowledged: true }, "c", { allowAcknowledged: true })).toEqual({ kind: "fully-consistent" });
    expect(violation(() => pagination({ limit: 0 }, "pagination"))).toEqual({ field: "pagination.limit", rule: "uint32.gt" });
    expect(violation(() => bulkItems([], "items"))?.rule).toBe("repeated.min_items");
    expect(violation(() => bulkItems(new Array(1001).fill(0), "items"))?.rule).toBe("repeated.max_items");
    expect(bulkItems(new Array(1000).fill(0), "items")).toHaveLength(1000);
  });
});

describe("continuation cursors", () => {
  it("round-trip any id and resume strictly after it", () => {
    for (const id of ["a", "redhat/alice", "ü/ß", "0000-ffff"]) expect(decodeCursor(encodeCursor(id))).toBe(id);
    const ids = ["a", "b", "d", "e"];
    expect(firstIndexAfter(ids, "b")).toBe(2);
    expect(firstIndexAfter(ids, "c")).toBe(2); // "c" vanished between pages: still resumes at "d"
    expect(firstIndexAfter(ids, "e")).toBe(4);
    expect(firstIndexAfter(ids, "")).toBe(0);
  });

  it("rejects garbage tokens", () => {
    for (const bad of ["", "c1.", "zz", "c1.!!", "GH1.abc"]) expect(() => decodeCursor(bad)).toThrow(EngineError);
  });
});

describe("configuration", () => {
  it("defaults to port 9091, limit 1000, unauthenticated", () => {
    const config = resolveConfig({});
    expect(config).toMatchObject({ port: 9091, listDefaultLimit: 1000, listMaxLimit: 1000, domain: "redhat", authn: { mode: "unauthenticated" } });
  });

  it("rejects bad values up front", () => {
    expect(() => resolveConfig({ port: 70000 })).toThrow(/port/);
    expect(() => resolveConfig({ list: { defaultLimit: 5000 } })).toThrow(/defaultLimit/);
    expect(() => resolveConfig({ authn: { mode: "oidc", serverUrl: "https://sso" } })).toThrow(/clientId/);
    expect(() => resolveConfig({ domain: "bad domain" })).toThrow(/domain/);
    for (const checkCacheBytes of [-1, 1.5, Number.NaN]) expect(() => resolveConfig({ checkCacheBytes })).toThrow(/checkCacheBytes must be a non-negative integer/);
  });

  it("bounds the evaluator's check cache at 8 MiB unless told otherwise", () => {
    expect(resolveConfig({}).checkCacheBytes).toBe(8 * 2 ** 20);
    expect(resolveConfig({ checkCacheBytes: 0 }).checkCacheBytes).toBe(0);
  });
});
