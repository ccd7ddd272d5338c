import { Allowed, CheckResponse, KesselInventoryServiceService } from "@gatehouse/proto";
import { describe, expect, it } from "vitest";
import { memoizeResponseBytes, ResponsePair } from "../src/grpc/encoded-responses.js";

describe("Check response reuse", () => {
  const build = (allowed: boolean, token: string): CheckResponse => ({ allowed: allowed ? Allowed.ALLOWED_TRUE : Allowed.ALLOWED_FALSE, consistencyToken: { token } });

  it("returns one object per (answer, token) and a new one when the token changes", () => {
    const pair = new ResponsePair(build);
    const yes = pair.get(true, "r1");
    expect(pair.get(true, "r1")).toBe(yes);
    expect(pair.get(false, "r1")).toEqual(build(false, "r1"));
    const next = pair.get(true, "r2");
    expect(next).not.toBe(yes);
    expect(next).toEqual(build(true, "r2"));
    expect(yes).toEqual(build(true, "r1"));
  });

  it("encodes a reused object once, and every object to the same bytes as the plain serializer", () => {
    let encodings = 0;
    const definition = {
      ...KesselInventoryServiceService,
      check: {
        ...KesselInventoryServiceService.check,
        responseSerialize: (value: CheckResponse) => (encodings++, KesselInventoryServiceService.check.responseSerialize(value)),
      },
    };
    const memoized = memoizeResponseBytes(definition, ["check"]);
    const response = build(true, "GH1.token");
    const first = memoized.check.responseSerialize(response);
    const second = memoized.check.responseSerialize(response);
    expect(encodings).toBe(1);
    expect(second).toBe(first);
    expect(CheckResponse.decode(first)).toEqual(response);
    expect(memoized.check.responseSerialize(build(false, "GH1.token"))).toEqual(Buffer.from(CheckResponse.encode(build(false, "GH1.token")).finish()));
    expect(memoized.checkBulk).toBe(KesselInventoryServiceService.checkBulk);
  });
});
