// Request translation per pattern, observed on the wire: a local gRPC server records what the SDK
// sends. It answers from a fixed allow-list; it tests the SDK's requests, not authorization logic.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Allowed, type CheckRequest, KesselInventoryServiceService, type StreamedListObjectsRequest, type StreamedListObjectsResponse } from "@gatehouse/proto";
import { type AuthzClient, createAuthzClient } from "@gatehouse/client";

interface Seen {
  rpc: string;
  request: Partial<CheckRequest & StreamedListObjectsRequest>;
  deadline: number;
}

describe("pattern helpers", () => {
  const seen: Seen[] = [];
  const failNext: { code?: status; times?: number } = {};
  let grpcServer: Server;
  let lookup: http.Server;
  let client: AuthzClient;
  const workspaceIds = Array.from({ length: 2500 }, (_, i) => `ws-${i}`);

  const record = (rpc: string, call: ServerUnaryCall<CheckRequest, unknown> | ServerWritableStream<StreamedListObjectsRequest, unknown>) => {
    const deadline = call.getDeadline();
    seen.push({ rpc, request: call.request, deadline: deadline instanceof Date ? deadline.getTime() : Number(deadline) });
  };
  const failure = () => {
    const code = failNext.code;
    failNext.times = (failNext.times ?? 1) - 1;
    if (failNext.times <= 0) failNext.code = undefined;
    return code === undefined ? null : { code, details: "injected" };
  };

  beforeAll(async () => {
    grpcServer = new Server();
    const answer = (call: ServerUnaryCall<CheckRequest, unknown>, callback: sendUnaryData<unknown>, rpc: string) => {
      record(rpc, call);
      const err = failure();
      if (err) {
        callback(err, null);
        return;
      }
      // Allowed only on the objects the test expects, so a wrong translation shows up as a deny.
      const id = call.request.object?.resourceId ?? "";
      callback(null, { allowed: ["host-1", "default-ws-o1", "root-ws-o1", "redhat/o1"].includes(id) ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE });
    };
    grpcServer.addService(KesselInventoryServiceService, {
      check: (call: ServerUnaryCall<CheckRequest, unknown>, cb: sendUnaryData<unknown>) => answer(call, cb, "Check"),
      checkForUpdate: (call: ServerUnaryCall<CheckRequest, unknown>, cb: sendUnaryData<unknown>) => answer(call, cb, "CheckForUpdate"),
      streamedListObjects: (call: ServerWritableStream<StreamedListObjectsRequest, StreamedListObjectsResponse>) => {
        record("StreamedListObjects", call);
        const err = failure();
        if (err) {
          call.emit("error", Object.assign(new Error(err.details), err));
          return;
        }
        const start = Number(call.request.pagination?.continuationToken || 0);
        const page = workspaceIds.slice(start, start + (call.request.pagination?.limit ?? 1000));
        const type = call.request.objectType?.resourceType ?? "workspace";
        page.forEach((id, i) =>
          call.write({
            object: { resourceType: type, resourceId: id, reporter: { type: "rbac" } },
            pagination: { continuationToken: String(start + i + 1) },
            consistencyToken: { token: `zed-${start + i}` },
          }),
        );
        call.end();
      },
    } as never);
    const port = await new Promise<number>((resolve, reject) => grpcServer.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    lookup = http.createServer((req, res) => {
      const type = new URL(req.url ?? "", "http://x").searchParams.get("type");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: `${type}-ws-${String(req.headers["x-rh-rbac-org-id"])}` }] }));
    });
    await new Promise<void>((r) => lookup.listen(0, "127.0.0.1", r));
    client = createAuthzClient({
      enabled: true,
      url: `127.0.0.1:${port}`,
      workspaceUrl: `http://127.0.0.1:${(lookup.address() as AddressInfo).port}`,
      insecure: true,
      auth: { enabled: false },
      timeoutMs: 2_000,
    });
  });
  afterAll(async () => {
    client.close();
    grpcServer.forceShutdown();
    await new Promise((r) => lookup.close(r));
  });

  const last = () => seen.at(-1)!;
  const principal = { resource: { resourceType: "principal", resourceId: "redhat/alice", reporter: { type: "rbac" } } };

  it("Pattern 1: the resource is the object; reads use Check, writes and sensitive reads CheckForUpdate", async () => {
    const resource = { type: "host", reporter: "hbi", id: "host-1" };
    expect(await client.checkResource({ resource, permission: "inventory_host_view", subject: "alice" })).toBe(true);
    expect(last()).toMatchObject({ rpc: "Check", request: { object: { resourceType: "host", resourceId: "host-1", reporter: { type: "hbi" } }, relation: "inventory_host_view", subject: principal } });
    await client.checkResource({ resource, permission: "inventory_host_update", subject: "alice", access: "write" });
    expect(last().rpc).toBe("CheckForUpdate");
    await client.checkResource({ resource, permission: "inventory_host_view", subject: "alice", access: "sensitive-read" });
    expect(last().rpc).toBe("CheckForUpdate");
    expect(await client.checkResource({ resource: { ...resource, id: "host-2" }, permission: "inventory_host_view", subject: "alice" })).toBe(false);
  });

  it("Pattern 1 list and Pattern 2: StreamedListObjects by type, paged until the end", async () => {
    const before = seen.length;
    const filter = await client.listWorkspaceIds({ permission: "patch_system_edit", subject: "alice" });
    expect(filter.ids).toEqual(workspaceIds);
    const pages = seen.slice(before);
    expect(pages.map((p) => p.rpc)).toEqual(["StreamedListObjects", "StreamedListObjects", "StreamedListObjects", "StreamedListObjects"]);
    expect(pages[0]!.request).toMatchObject({ objectType: { resourceType: "workspace", reporterType: "rbac" }, relation: "patch_system_edit", subject: principal, pagination: { limit: 1000 } });
    expect(pages[1]!.request).toMatchObject({ pagination: { limit: 1000, continuationToken: "1000" } });
    expect(filter.toSql("h.workspace_id", 2)).toEqual({ text: "h.workspace_id = ANY($2)", values: [workspaceIds] });
    expect(filter.has("ws-7")).toBe(true);
    expect(filter.consistencyToken).toBe("zed-2499");
  });

  it("listResources is an async iterator over every page, each item with its consistency token", async () => {
    const before = seen.length;
    const items = [];
    for await (const item of client.listResources({ type: "host", reporter: "hbi", permission: "inventory_host_view", subject: "alice" })) items.push(item);
    expect(items).toHaveLength(2500);
    expect(items[0]).toEqual({ id: "ws-0", consistencyToken: "zed-0" });
    expect(items[1999]).toEqual({ id: "ws-1999", consistencyToken: "zed-1999" });
    expect(seen.slice(before).map((s) => s.request.objectType)).toEqual(Array(4).fill({ resourceType: "host", reporterType: "hbi" }));
  });

  it("listResources streams: the first item arrives before later pages are asked for, and stopping early asks for no further page", async () => {
    const before = seen.length;
    const iterator = client.listResources({ type: "host", reporter: "hbi", permission: "inventory_host_view", subject: "alice" })[Symbol.asyncIterator]();
    expect(seen.length).toBe(before); // lazy: nothing is sent until the caller asks
    expect((await iterator.next()).value).toEqual({ id: "ws-0", consistencyToken: "zed-0" });
    expect(seen.length - before).toBe(1);
    await iterator.return?.();
    let taken = 0;
    for await (const item of client.listResources({ type: "host", reporter: "hbi", permission: "inventory_host_view", subject: "alice" })) {
      if (++taken === 1500) {
        expect(item.id).toBe("ws-1499");
        break;
      }
    }
    expect(seen.length - before).toBe(3); // 1 + 2 pages: the third and fourth page are never requested
  });

  it("Patterns 3, 4, 5: default workspace, root workspace and tenant are the objects", async () => {
    const input = { orgId: "o1", permission: "content_sources_repository_view", subject: "alice" };
    expect(await client.checkDefaultWorkspace(input)).toBe(true);
    expect(last().request.object).toEqual({ resourceType: "workspace", resourceId: "default-ws-o1", reporter: { type: "rbac" } });
    expect(await client.checkRootWorkspace(input)).toBe(true);
    expect(last().request.object).toEqual({ resourceType: "workspace", resourceId: "root-ws-o1", reporter: { type: "rbac" } });
    expect(await client.checkTenant({ ...input, access: "write" })).toBe(true);
    expect(last()).toMatchObject({ rpc: "CheckForUpdate", request: { object: { resourceType: "tenant", resourceId: "redhat/o1", reporter: { type: "rbac" } } } });
  });

  it("sets a deadline on every call and passes consistency on reads", async () => {
    await client.checkResource({ resource: { type: "host", reporter: "hbi", id: "host-1" }, permission: "p", subject: "alice", consistency: { atLeastAsFresh: "tok" } });
    expect(last().request).toMatchObject({ consistency: { atLeastAsFresh: { token: "tok" } } });
    expect(seen.every((s) => Number.isFinite(s.deadline) && s.deadline > 0)).toBe(true);
    await expect(
      client.checkResource({ resource: { type: "host", reporter: "hbi", id: "h" }, permission: "p", subject: "alice", access: "write", consistency: "minimize-latency" }),
    ).rejects.toMatchObject({ code: "invalid-argument" });
  });

  it("retries UNAVAILABLE by the service config with backoff, up to its attempt limit", async () => {
    const resource = { type: "host", reporter: "hbi", id: "host-1" };
    let before = seen.length;
    failNext.code = status.UNAVAILABLE;
    failNext.times = 3;
    expect(await client.checkResource({ resource, permission: "p", subject: "alice" })).toBe(true);
    expect(seen.length - before).toBe(4);
    before = seen.length;
    failNext.code = status.UNAVAILABLE;
    failNext.times = 5;
    await expect(client.checkResource({ resource, permission: "p", subject: "alice" })).rejects.toMatchObject({ code: "unavailable" });
    expect(seen.length - before).toBe(4);
    failNext.code = undefined;
    before = seen.length;
    failNext.code = status.UNAVAILABLE;
    failNext.times = 1;
    const filter = await client.listWorkspaceIds({ permission: "patch_system_edit", subject: "alice" });
    expect(filter.ids).toHaveLength(2500);
    expect(seen.length - before).toBe(5); // a failed attempt before the first item, then four pages
  });

  it("retries once on UNAVAILABLE, never on INVALID_ARGUMENT", async () => {
    const resource = { type: "host", reporter: "hbi", id: "host-1" };
    let before = seen.length;
    failNext.code = status.UNAVAILABLE;
    expect(await client.checkResource({ resource, permission: "p", subject: "alice" })).toBe(true);
    expect(seen.length - before).toBe(2);
    before = seen.length;
    failNext.code = status.INVALID_ARGUMENT;
    await expect(client.checkResource({ resource, permission: "p", subject: "alice" })).rejects.toMatchObject({ code: "invalid-argument", message: expect.stringMatching(/injected/) });
    expect(seen.length - before).toBe(1);
  });

  it("rejects bad input before calling", async () => {
    const before = seen.length;
    await expect(client.checkResource({ resource: { type: "hbi/host", reporter: "hbi", id: "x" }, permission: "p", subject: "a" })).rejects.toMatchObject({ code: "invalid-argument" });
    await expect(client.checkTenant({ orgId: "o1", permission: "bad permission", subject: "a" })).rejects.toMatchObject({ code: "invalid-argument" });
    await expect(client.checkTenant({ orgId: "o1", permission: "p", subject: "redhat/a" })).rejects.toMatchObject({ code: "invalid-argument" });
    expect(seen.length).toBe(before);
  });

  it("fails with unavailable when the server cannot be reached", async () => {
    const offline = createAuthzClient({ enabled: true, url: "127.0.0.1:9", insecure: true, auth: { enabled: false }, timeoutMs: 500 });
    await expect(offline.checkTenant({ orgId: "o1", permission: "p", subject: "a" })).rejects.toMatchObject({ code: expect.stringMatching(/unavailable|deadline-exceeded/) });
    offline.close();
  });
});
