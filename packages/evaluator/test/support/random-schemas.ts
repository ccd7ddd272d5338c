// Random schemas and data for the differential against SpiceDB. Unlike random-graphs.ts (fixed
// schemas), every seed draws its own schema: relations allowing plain types, wildcards and subject
// sets of other types (relations and permissions), permissions mixing `+ & -` over references and
// arrows; then data that often holds membership cycles and, on purpose, long chains near the depth limit.
import type { ObjectRef, Relationship, SubjectRef } from "../../src/index.js";
import { seededRandom, type Random } from "./random-graphs.js";

export interface SubjectsQuery {
  resource: ObjectRef;
  permission: string;
  subjectType: string;
  subjectRelation?: string;
}

export interface RandomSchemaCase {
  seed: number;
  schema: string;
  relationships: Relationship[];
  checks: Array<{ resource: ObjectRef; permission: string; subject: SubjectRef }>;
  lookups: Array<{ resourceType: string; permission: string; subject: SubjectRef }>;
  subjectLookups: SubjectsQuery[];
  /** True when the data was drawn with a long chain (see `chainLength`). */
  chain: boolean;
}

interface TypeShape {
  name: string;
  relations: Array<{ name: string; allowed: string[] }>;
  permissions: Array<{ name: string; expression: string }>;
}

const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const chance = (rnd: Random, p: number): boolean => rnd() < p;

const OBJECT_TYPES = ["doc", "folder", "team"];
const RELATIONS = ["owner", "member", "parent"];
const PERMISSIONS = ["view", "edit"];

/** Names (relations and permissions) of a type. */
const namesOf = (t: TypeShape): string[] => [...t.relations.map((r) => r.name), ...t.permissions.map((p) => p.name)];

export function randomSchemaCase(seed: number): RandomSchemaCase {
  const rnd = seededRandom(seed);
  const types: TypeShape[] = OBJECT_TYPES.map((name) => ({
    name,
    // Names differ per type: SpiceDB's wildcard analysis caches by bare relation name, so shared
    // names would make its verdict depend on map order.
    relations: RELATIONS.map((r) => ({ name: `${name[0]}_${r}`, allowed: [] })),
    permissions: PERMISSIONS.map((p) => ({ name: `${name[0]}_${p}`, expression: "" })),
  }));

  // Allowed subjects: users, user wildcards, plain objects and subject sets (relations or permissions).
  for (const t of types) {
    for (const r of t.relations) {
      const count = 1 + Math.floor(rnd() * 3);
      for (let i = 0; i < count; i++) {
        const x = rnd();
        let allowed: string;
        if (x < 0.3) allowed = "user";
        else if (x < 0.4) allowed = "user:*";
        else if (x < 0.65) allowed = pick(rnd, OBJECT_TYPES);
        else {
          const other = pick(rnd, types);
          allowed = `${other.name}#${pick(rnd, namesOf(other))}`;
        }
        // Rarely keep a duplicate (SpiceDB refuses it: a schema-verdict case).
        if (!r.allowed.includes(allowed) || chance(rnd, 0.03)) r.allowed.push(allowed);
      }
    }
  }

  // Permissions: `+ & -` over references to relations / earlier permissions and arrows.
  for (const t of types) {
    t.permissions.forEach((p, index) => {
      const leaf = (): string => {
        if (chance(rnd, 0.45)) {
          // Mostly over relations without a direct wildcard (SpiceDB refuses those).
          const plain = t.relations.filter((r) => !r.allowed.includes("user:*"));
          const r = plain.length > 0 && !chance(rnd, 0.05) ? pick(rnd, plain) : pick(rnd, t.relations);
          const targets = new Set<string>();
          for (const a of r.allowed) {
            const type = types.find((x) => x.name === a.split(/[#:]/)[0]);
            if (type) for (const n of namesOf(type)) targets.add(n);
          }
          if (targets.size > 0 && !chance(rnd, 0.03)) return `${r.name}->${pick(rnd, [...targets])}`;
          return `${r.name}->${pick(rnd, namesOf(pick(rnd, types)))}`;
        }
        const own = [...t.relations.map((r) => r.name), ...t.permissions.slice(0, index).map((x) => x.name)];
        return pick(rnd, own);
      };
      const expression = (depth: number): string => {
        if (depth >= 2 || chance(rnd, 0.35)) return leaf();
        const op = pick(rnd, ["+", "+", "&", "-"]);
        return `(${expression(depth + 1)} ${op} ${expression(depth + 1)})`;
      };
      p.expression = chance(rnd, 0.02) ? "nil" : expression(0);
    });
  }

  const schema = [
    "definition user {}",
    ...types.map((t) =>
      [`definition ${t.name} {`, ...t.relations.map((r) => `  relation ${r.name}: ${r.allowed.join(" | ")}`), ...t.permissions.map((p) => `  permission ${p.name} = ${p.expression}`), "}"].join("\n"),
    ),
  ].join("\n\n");

  // Data.
  const users = ["u0", "u1", "u2", "u3"];
  const ids = ["a", "b", "c", "d"];
  const out = new Map<string, Relationship>();
  const add = (r: Relationship): void => {
    out.set(`${r.resourceType}:${r.resourceId}#${r.relation}@${r.subjectType}:${r.subjectId}#${r.subjectRelation ?? ""}`, r);
  };
  const subjectFor = (allowed: string, idPool: readonly string[]): Omit<Relationship, "resourceType" | "resourceId" | "relation"> => {
    if (allowed === "user") return { subjectType: "user", subjectId: pick(rnd, users) };
    if (allowed === "user:*") return { subjectType: "user", subjectId: "*" };
    const [type, relation] = allowed.split("#") as [string, string | undefined];
    return relation ? { subjectType: type, subjectId: pick(rnd, idPool), subjectRelation: relation } : { subjectType: type, subjectId: pick(rnd, idPool) };
  };
  const density = 0.3 + rnd() * 0.5;
  for (const t of types) {
    for (const id of ids) {
      for (const r of t.relations) {
        const n = chance(rnd, density) ? 1 + Math.floor(rnd() * 2) : 0;
        for (let k = 0; k < n; k++) add({ resourceType: t.name, resourceId: id, relation: r.name, ...subjectFor(pick(rnd, r.allowed), ids) });
      }
    }
  }
  // A long chain through one relation that allows its own type (plain or subject set), ending at a user.
  const chainable = types.flatMap((t) => t.relations.flatMap((r) => r.allowed.filter((a) => a.split(/[#:]/)[0] === t.name).map((a) => ({ t, r, a }))));
  const chain = chainable.length > 0 && chance(rnd, 0.35);
  const chainIds: string[] = [];
  if (chain) {
    const { t, r, a } = pick(rnd, chainable);
    const length = 20 + Math.floor(rnd() * 40);
    for (let i = 0; i < length; i++) chainIds.push(`c${i}`);
    for (let i = 0; i + 1 < length; i++) {
      const [, relation] = a.split("#");
      add({ resourceType: t.name, resourceId: chainIds[i]!, relation: r.name, subjectType: t.name, subjectId: chainIds[i + 1]!, ...(relation ? { subjectRelation: relation } : {}) });
    }
    const userAllowed = types.flatMap((x) => x.relations.filter((rr) => rr.allowed.includes("user")).map((rr) => ({ x, rr })));
    const end = userAllowed.find((u) => u.x === t) ?? (userAllowed.length > 0 ? pick(rnd, userAllowed) : undefined);
    if (end) add({ resourceType: end.x.name, resourceId: chainIds[length - 1]!, relation: end.rr.name, subjectType: "user", subjectId: "u0" });
    // Sometimes close the chain into a loop.
    if (chance(rnd, 0.3)) {
      const [, relation] = a.split("#");
      add({ resourceType: t.name, resourceId: chainIds[length - 1]!, relation: r.name, subjectType: t.name, subjectId: chainIds[0]!, ...(relation ? { subjectRelation: relation } : {}) });
    }
  }

  // Queries.
  const objectIds = [...ids, ...chainIds.filter((_, i) => i % 7 === 0)];
  const subjects: SubjectRef[] = [
    ...users.map((id) => ({ type: "user", id })),
    { type: "user", id: "nobody" },
    ...Array.from({ length: 3 }, () => {
      const t = pick(rnd, types);
      return { type: t.name, id: pick(rnd, ids), relation: pick(rnd, namesOf(t)) };
    }),
  ];
  const checks = Array.from({ length: 60 }, () => {
    const t = pick(rnd, types);
    return { resource: { type: t.name, id: pick(rnd, objectIds) }, permission: pick(rnd, namesOf(t)), subject: pick(rnd, subjects) };
  });
  const lookups = Array.from({ length: 12 }, () => {
    const t = pick(rnd, types);
    return { resourceType: t.name, permission: pick(rnd, namesOf(t)), subject: pick(rnd, subjects) };
  });
  const subjectLookups = Array.from({ length: 12 }, (): SubjectsQuery => {
    const t = pick(rnd, types);
    const query: SubjectsQuery = { resource: { type: t.name, id: pick(rnd, objectIds) }, permission: pick(rnd, namesOf(t)), subjectType: "user" };
    if (chance(rnd, 0.3)) {
      const s = pick(rnd, types);
      query.subjectType = s.name;
      if (chance(rnd, 0.6)) query.subjectRelation = pick(rnd, namesOf(s));
    }
    return query;
  });
  return { seed, schema, relationships: [...out.values()], checks, lookups, subjectLookups, chain };
}
