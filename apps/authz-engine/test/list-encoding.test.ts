import { StreamedListObjectsResponse } from "@gatehouse/proto";
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../src/commands/cursor.js";
import { objectItemEncoder } from "../src/grpc/list-encoding.js";

describe("pre-encoded StreamedListObjects items", () => {
  it("are byte for byte what the generated codec produces", () => {
    const longId = "h".repeat(300);
    const tokens = ["GH1.eyJ2IjoxLCJyIjoiNDIiLCJzIjoiYWJjIn0", "t".repeat(200)];
    for (const token of tokens) {
      const encode = objectItemEncoder("host", "hbi", token);
      for (const id of ["host-0000001", "a", longId, "wörkspace-é-日本", "x".repeat(20_000)]) {
        const cursor = encodeCursor(id);
        const expected = Buffer.from(
          StreamedListObjectsResponse.encode({
            object: { resourceType: "host", resourceId: id, reporter: { type: "hbi" } },
            pagination: { continuationToken: cursor },
            consistencyToken: { token },
          }).finish(),
        );
        const bytes = encode(id, cursor);
        expect(bytes.equals(expected)).toBe(true);
        expect(StreamedListObjectsResponse.decode(bytes).object?.resourceId).toBe(id);
      }
    }
  });
});
