import { describe, expect, it } from "vitest";
import { defaultAssetTypes, translateRequest, type V1Request } from "@gatehouse/rbac";
import table from "./data/translation.json" with { type: "json" };

const catalog = defaultAssetTypes();
const assetType = (key: string) => {
  const t = catalog.assetTypes.get(key);
  if (!t) throw new Error(`fixture references unknown asset type ${key}`);
  return t;
};

describe("request translation per pattern", () => {
  it.each(table.rows)("$name", (row) => {
    const out = translateRequest(row.request as V1Request, assetType(row.assetType), table.context);
    expect(out.rpc).toBe(row.rpc);
    if (out.rpc === "StreamedListObjects") {
      expect(out.request).toEqual({ object_type: row.objectType, relation: row.relation, subject: table.subject });
    } else {
      expect(out.request).toEqual({ object: row.object, relation: row.relation, subject: table.subject });
    }
  });

  it.each(table.errors)("rejects: $name", (row) => {
    expect(() => translateRequest(row.request as V1Request, assetType(row.assetType), row.context)).toThrow(expect.objectContaining({ code: row.code }));
  });
});
