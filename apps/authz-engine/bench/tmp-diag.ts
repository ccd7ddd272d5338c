import { check, RelationshipGraph } from "@gatehouse/evaluator";
import { compileRoleModel } from "@gatehouse/role-config";
import { distinctQueries, scaleRelationships } from "./scale-data.js";
const model = compileRoleModel("stage");
const g = new RelationshipGraph(model);
const data = scaleRelationships({ relationships: Number(process.env.N ?? 1_000_000), model });
for (const r of data.relationships) g.add(r);
g.compact();
const sizes = () => {
  const out: Record<string, number> = {};
  for (const [name, arr] of [
    ["f", g.forward],
    ["r", g.reverse],
    ["s", g.forwardSets],
  ] as const) {
    arr.forEach((a: any, slot: number) => {
      if (!a) return;
      const b = (a.offsets?.byteLength ?? 0) + (a.targets?.byteLength ?? 0) + (a.sparseKeys?.byteLength ?? 0) + (a.keyBlocks?.byteLength ?? 0);
      if (b > 100000) out[`${name}:${model.slots[slot]!.name}:${a.sparseKeys ? "sparse" : "dense"}${a.lists.size ? ":ov" + a.lists.size : ""}`] = b;
    });
  }
  return out;
};
const before = sizes();
const tenants = data.shape.tenants;
const qs = distinctQueries(
  tenants,
  tenants.reduce((n, t) => n + t.hosts, 0),
  100_000,
);
for (const q of qs) check(g, { type: "hbi/host", id: q.host }, "view", { type: "rbac/principal", id: q.user });
const after = sizes();
for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) console.log(k.padEnd(40), ((before[k] ?? 0) / 1e6).toFixed(2), ((after[k] ?? 0) / 1e6).toFixed(2));
console.log("nodes", g.nodeCount);
