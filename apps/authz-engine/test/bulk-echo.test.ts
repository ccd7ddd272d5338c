import { BinaryWriter } from "@bufbuild/protobuf/wire";
import {
  Allowed,
  CheckBulkRequest,
  type CheckBulkRequestItem,
  CheckBulkResponse,
  type CheckForUpdateBulkResponse,
  CheckSelfBulkRequest,
  type CheckSelfBulkResponse,
  KesselInventoryServiceService,
} from "@gatehouse/proto";
import { describe, expect, it } from "vitest";
import { echoBulkItems } from "../src/grpc/bulk-echo.js";
import { strictUtf8Requests } from "../src/grpc/strict-utf8.js";

const service = echoBulkItems(strictUtf8Requests(KesselInventoryServiceService), ["checkBulk", "checkForUpdateBulk", "checkSelfBulk"]);
const plain = KesselInventoryServiceService;

/** Items covering what a client may send: optional fields absent or empty, non-ASCII text, subject relations. */
function item(i: number): CheckBulkRequestItem {
  const ids = ["host-1", "é-ü-ß", "", "日本語", "x".repeat(200), " padded "];
  return {
    object: {
      resourceType: i % 3 === 0 ? "host" : "Workspace",
      resourceId: ids[i % ids.length]!,
      reporter: i % 4 === 0 ? { type: "hbi" } : { type: "rbac", instanceId: i % 8 === 1 ? "" : "instance-1" },
    },
    relation: i % 5 === 0 ? "" : "view",
    subject: i % 7 === 0 ? undefined : { resource: { resourceType: "principal", resourceId: `redhat/${i}`, reporter: { type: "rbac" } }, relation: i % 2 ? "member" : undefined },
  };
}

describe("bulk answers echo the items' received bytes", () => {
  it("writes the same bytes as the generated encoder for every item shape, answer and token", () => {
    for (const count of [1, 2, 50, 200]) {
      for (const token of [undefined, "", "GH1.a-token"]) {
        const items = Array.from({ length: count }, (_, i) => item(i + count));
        const bytes = Buffer.from(CheckBulkRequest.encode({ items, consistency: { minimizeLatency: true } }).finish());
        const request = service.checkBulk.requestDeserialize(bytes);
        expect(CheckBulkRequest.toJSON(request)).toEqual(CheckBulkRequest.toJSON(CheckBulkRequest.decode(bytes)));
        const response: CheckBulkResponse = {
          pairs: request.items.map((req, i) => ({ request: req, item: { allowed: [Allowed.ALLOWED_TRUE, Allowed.ALLOWED_FALSE, Allowed.ALLOWED_UNSPECIFIED][i % 3]! } })),
          ...(token === undefined ? {} : { consistencyToken: { token } }),
        };
        const echoed = service.checkBulk.responseSerialize(response);
        expect(echoed).toEqual(plain.checkBulk.responseSerialize(response));
        expect(CheckBulkResponse.toJSON(CheckBulkResponse.decode(echoed))).toEqual(CheckBulkResponse.toJSON(response));
      }
    }
  });

  it("echoes an item as it was received (an unknown field kept), which decodes to the same answer", () => {
    const known = item(3);
    const writer = new BinaryWriter();
    writer.uint32(10).fork();
    // The item's own fields, then an unknown field 9 (a newer client's), within the item.
    const itemBytes = CheckBulkRequest.encode({ items: [known] })
      .finish()
      .subarray(2);
    writer.raw(itemBytes);
    writer.uint32((9 << 3) | 2).string("from a newer client");
    writer.join();
    const bytes = Buffer.from(writer.finish());
    const request = service.checkBulk.requestDeserialize(bytes);
    const response: CheckBulkResponse = { pairs: [{ request: request.items[0]!, item: { allowed: Allowed.ALLOWED_TRUE } }], consistencyToken: { token: "t" } };
    const echoed = service.checkBulk.responseSerialize(response);
    expect(echoed.includes(Buffer.from("from a newer client"))).toBe(true);
    expect(CheckBulkResponse.decode(echoed)).toEqual(CheckBulkResponse.decode(plain.checkBulk.responseSerialize(response)));
  });

  it("leaves answers with an error pair, items built in code or unknown enum values to the generated encoder", () => {
    const bytes = Buffer.from(CheckBulkRequest.encode({ items: [item(1), item(2)] }).finish());
    const request = service.checkBulk.requestDeserialize(bytes);
    const responses: CheckBulkResponse[] = [
      {
        pairs: [
          { request: request.items[0]!, item: { allowed: Allowed.ALLOWED_TRUE } },
          { request: request.items[1]!, error: { code: 3, message: "invalid", details: [] } },
        ],
      },
      { pairs: [{ request: item(1), item: { allowed: Allowed.ALLOWED_TRUE } }] },
      { pairs: [{ request: request.items[0]!, item: { allowed: Allowed.UNRECOGNIZED } }] },
      { pairs: [] },
    ];
    for (const response of responses) expect(service.checkBulk.responseSerialize(response)).toEqual(plain.checkBulk.responseSerialize(response));
  });

  it("serves CheckForUpdateBulk and CheckSelfBulk the same way", () => {
    const items = [item(1), item(4)];
    const bytes = Buffer.from(CheckBulkRequest.encode({ items }).finish());
    const update = service.checkForUpdateBulk.requestDeserialize(bytes);
    const updateResponse: CheckForUpdateBulkResponse = { pairs: update.items.map((req) => ({ request: req, item: { allowed: Allowed.ALLOWED_FALSE } })), consistencyToken: { token: "u" } };
    expect(service.checkForUpdateBulk.responseSerialize(updateResponse)).toEqual(plain.checkForUpdateBulk.responseSerialize(updateResponse));
    const self = service.checkSelfBulk.requestDeserialize(Buffer.from(CheckSelfBulkRequest.encode({ items: items.map(({ object, relation }) => ({ object, relation })) }).finish()));
    const selfResponse: CheckSelfBulkResponse = { pairs: self.items.map((req) => ({ request: req, item: { allowed: Allowed.ALLOWED_TRUE } })), consistencyToken: { token: "s" } };
    expect(service.checkSelfBulk.responseSerialize(selfResponse)).toEqual(plain.checkSelfBulk.responseSerialize(selfResponse));
  });

  it("still refuses what the strict decoder refuses and keeps other methods as they were", () => {
    expect(() => service.checkBulk.requestDeserialize(Buffer.from([0x0a, 0x05, 0x01]))).toThrow();
    expect(service.check.responseSerialize).toBe(plain.check.responseSerialize);
  });
});
