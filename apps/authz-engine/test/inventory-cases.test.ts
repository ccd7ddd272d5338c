// Runs the upstream inventory-api behaviours transcribed as data (test/cases/inventory/*.json)
// through a real grpc-js client against a real engine, one fresh engine per file, cases in order.
// A case: rpc, request (with "$child" / "$hosts" standing for the seeded workspaces), optional
// identity (x-rh-identity), and expect { code, response (partial match) | stream (item by item) |
// details (substring of the error text) }.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { encodeIdentityHeader } from "@gatehouse/auth";
import {
  CheckBulkRequest,
  CheckForUpdateBulkRequest,
  CheckForUpdateRequest,
  CheckRequest,
  CheckSelfRequest,
  DeleteResourceRequest,
  ReportResourceRequest,
  StreamedListObjectsRequest,
  StreamedListSubjectsRequest,
} from "@gatehouse/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, childWorkspace, hostIn, readGrant, startEngine, type RunningEngine } from "./helpers.js";

interface InventoryCase {
  name: string;
  rpc: string;
  request: unknown;
  identity?: { orgId: string; userId: string };
  expect: { code: keyof typeof status; response?: unknown; stream?: unknown[]; details?: string };
}

const ORG = "cases-org";
const casesDir = join(import.meta.dirname, "cases", "inventory");
const files = readdirSync(casesDir)
  .filter((f) => f.endsWith(".json"))
  .sort();
const STREAMING = new Set(["streamedListObjects", "streamedListSubjects"]);
/** Cases hold only the fields they set; the codec fills the rest with proto3 defaults, as a client sends them. */
const MESSAGES: Record<string, { fromPartial(object: never): unknown }> = {
  check: CheckRequest,
  checkForUpdate: CheckForUpdateRequest,
  checkSelf: CheckSelfRequest,
  checkBulk: CheckBulkRequest,
  checkForUpdateBulk: CheckForUpdateBulkRequest,
  reportResource: ReportResourceRequest,
  deleteResource: DeleteResourceRequest,
  streamedListObjects: StreamedListObjectsRequest,
  streamedListSubjects: StreamedListSubjectsRequest,
};

async function outcome(engine: RunningEngine, rpc: string, request: unknown, metadata: Metadata): Promise<{ code: number; value?: unknown; details?: string }> {
  try {
    if (STREAMING.has(rpc)) {
      const method = (engine.client as unknown as Record<string, (r: unknown, m: Metadata) => AsyncIterable<unknown>>)[rpc]!;
      const items: unknown[] = [];
      for await (const item of method.call(engine.client, request, metadata)) items.push(item);
      return { code: status.OK, value: items };
    }
    const value = await call(engine.client, rpc as Parameters<typeof call>[1], request as never, metadata);
    return { code: status.OK, value };
  } catch (error) {
    const failure = error as ServiceError;
    return { code: failure.code, details: failure.details };
  }
}

for (const file of files) {
  const { cases } = JSON.parse(readFileSync(join(casesDir, file), "utf8")) as { cases: InventoryCase[] };

  describe(`inventory-api cases: ${file}`, () => {
    let engine: RunningEngine;
    const ids: Record<string, string> = { child: "case-child" };

    beforeAll(async () => {
      engine = await startEngine();
      const tenant = (await engine.store.tenants.bootstrap(ORG)).value;
      ids["hosts"] = (await engine.store.workspaces.create(ORG, { name: "hosts", parentId: tenant.defaultWorkspaceId })).value.id;
      await engine.store.relationships.write(ORG, {
        touch: [...readGrant(tenant.defaultWorkspaceId, "alice"), childWorkspace("case-child", tenant.defaultWorkspaceId), hostIn("case-host-1", "case-child")],
      });
    });

    afterAll(async () => {
      await engine?.close();
    });

    for (const c of cases) {
      it(c.name, async () => {
        const message = MESSAGES[c.rpc];
        if (!message) throw new Error(`unknown rpc in case file: ${c.rpc}`);
        const request = message.fromPartial(JSON.parse(JSON.stringify(c.request).replace(/\$(child|hosts)/g, (_, key: string) => ids[key]!)) as never);
        const metadata = new Metadata();
        if (c.identity) metadata.set("x-rh-identity", encodeIdentityHeader({ ...c.identity, username: c.identity.userId }));
        const result = await outcome(engine, c.rpc, request, metadata);
        expect({ code: status[result.code], details: result.details }).toMatchObject({ code: c.expect.code });
        if (c.expect.details !== undefined) expect(result.details).toContain(c.expect.details);
        if (c.expect.response !== undefined) expect(result.value).toMatchObject(c.expect.response as object);
        if (c.expect.stream !== undefined) {
          const items = result.value as unknown[];
          expect(items).toHaveLength(c.expect.stream.length);
          c.expect.stream.forEach((expected, i) => expect(items[i]).toMatchObject(expected as object));
        }
      });
    }
  });
}
