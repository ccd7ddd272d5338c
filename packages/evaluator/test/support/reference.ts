// A reference evaluator, written for clarity rather than speed: the third oracle beside the
// evaluator and SpiceDB, for the answers SpiceDB cannot give (it refuses cyclic data with a
// max-depth error).
//
// For one subject, every (object, relation-or-permission) of the data is an atom, and the schema
// gives each atom an equation over other atoms and the relationships. A relationship set grants
// exactly what has a finite derivation: the least fixed point of those equations. Exclusion is not
// monotone, so the answer is the well-founded model, computed by the alternating fixed point: an
// atom is true when it holds in the least model that takes every subtracted side from an
// over-estimate, false when it fails even in the one that takes them from the under-estimate, and
// undefined in between (it depends on itself through a subtracted side, e.g. `p = a - p`). On
// data without such cycles nothing is undefined. No depth limit: the dispatch depth is the
// evaluator's and SpiceDB's own bound, not part of what the data grants.
import type { Model, Relationship, SubjectRef } from "../../src/index.js";
import type { Op } from "../../src/model/model.js";

export type ReferenceAnswer = true | false | "undefined";

/** The relationships in force at `now` (an expiry at or before `now` has taken the relationship away). */
function live(relationships: readonly Relationship[], now: number): Relationship[] {
  return relationships.filter((r) => r.expiresAt === undefined || r.expiresAt > now);
}

/** Atoms are strings: `type:id#name` for a slot, `type:id#-N` for the subtracted side of exclusion N. */
const atom = (type: string, id: string, name: string): string => `${type}:${id}#${name}`;

interface Equation {
  type: string;
  id: string;
  body: (value: (key: string) => boolean, negated: (key: string) => boolean) => boolean;
}

/** The model for one subject: every atom's answer. */
export class ReferenceModel {
  private readonly truth: Set<string>;
  private readonly possible: Set<string>;

  constructor(
    readonly model: Model,
    relationships: readonly Relationship[],
    readonly subject: SubjectRef,
    now = Date.now(),
  ) {
    const tuples = live(relationships, now);
    const objects = new Map<string, { type: string; id: string }>();
    const note = (type: string, id: string): void => {
      if (id !== "*") objects.set(`${type}:${id}`, { type, id });
    };
    for (const r of tuples) {
      note(r.resourceType, r.resourceId);
      note(r.subjectType, r.subjectId);
    }
    note(subject.type, subject.id);
    const equations = new Map<string, Equation>();
    for (const { type, id } of objects.values()) {
      const definition = model.definitions.get(type);
      if (!definition) continue;
      for (const name of [...definition.relations.keys(), ...definition.permissions.keys()]) {
        this.addEquations(equations, tuples, type, id, name);
      }
    }
    // Alternating fixed point: under-estimate T, over-estimate U, until T no longer grows.
    let truth = new Set<string>();
    let possible = leastModel(equations, (key) => !truth.has(key));
    for (;;) {
      const next = leastModel(equations, (key) => !possible.has(key));
      possible = leastModel(equations, (key) => !next.has(key));
      if (next.size === truth.size) break;
      truth = next;
    }
    this.truth = truth;
    this.possible = possible;
  }

  /** Does the subject hold `name` on `type:id`? */
  answer(type: string, id: string, name: string): ReferenceAnswer {
    const { subject } = this;
    // A subject set holds itself, even on an object no relationship names.
    if (subject.relation === name && subject.type === type && subject.id === id) return true;
    const key = atom(type, id, name);
    if (this.truth.has(key)) return true;
    if (!this.possible.has(key)) return false;
    return "undefined";
  }

  private addEquations(equations: Map<string, Equation>, tuples: readonly Relationship[], type: string, id: string, name: string): void {
    const { model, subject } = this;
    const typeIndex = model.typeIndex(type)!;
    const slot = model.slots[model.slotOf(typeIndex, name)]!;
    const self = subject.relation === name && subject.type === type && subject.id === id;
    if (slot.stored) {
      const mine = tuples.filter((r) => r.resourceType === type && r.resourceId === id && r.relation === name);
      equations.set(atom(type, id, name), {
        type,
        id,
        body: (value) =>
          self ||
          mine.some((r) => {
            // `T:*` grants every subject of type T, subject sets of T included.
            if (r.subjectId === "*") return r.subjectType === subject.type;
            if (r.subjectRelation === undefined) return r.subjectType === subject.type && r.subjectId === subject.id && subject.relation === undefined;
            // A subject set: the subject itself, or what holds that relation there.
            if (r.subjectType === subject.type && r.subjectId === subject.id && r.subjectRelation === subject.relation) return true;
            return value(atom(r.subjectType, r.subjectId, r.subjectRelation));
          }),
      });
      return;
    }
    let exclusions = 0;
    const compile = (op: Op): Equation["body"] => {
      switch (op.k) {
        case "nil":
          return () => false;
        case "slot":
          return (value) => value(atom(type, id, model.slots[op.slot]!.name));
        case "arrow": {
          const tupleset = model.slots[op.tupleset]!.name;
          const objects = tuples.filter((r) => r.resourceType === type && r.resourceId === id && r.relation === tupleset);
          // An arrow walks to the object of each tuple (a subject set's relation is ignored).
          return (value) =>
            objects.some((r) => {
              const targetType = model.typeIndex(r.subjectType);
              const target = targetType === undefined ? -1 : op.targetByType[targetType]!;
              return target >= 0 && value(atom(r.subjectType, r.subjectId, model.slots[target]!.name));
            });
        }
        case "union": {
          const parts = op.ops.map(compile);
          return (value, negated) => parts.some((p) => p(value, negated));
        }
        case "intersection": {
          const parts = op.ops.map(compile);
          return (value, negated) => parts.every((p) => p(value, negated));
        }
        case "exclusion": {
          // The subtracted side gets an atom of its own, so its negation reads an estimate.
          const left = compile(op.left);
          const right = compile(op.right);
          const key = atom(type, id, `${name}-${exclusions++}`);
          equations.set(key, { type, id, body: right });
          return (value, negated) => left(value, negated) && negated(key);
        }
      }
    };
    const body = compile(slot.op!);
    equations.set(atom(type, id, name), { type, id, body: (value, negated) => self || body(value, negated) });
  }
}

/** The least model of the equations, reading each subtracted side's negation from `negated`. */
function leastModel(equations: ReadonlyMap<string, Equation>, negated: (key: string) => boolean): Set<string> {
  const holds = new Set<string>();
  const value = (key: string): boolean => holds.has(key);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [key, equation] of equations) {
      if (!holds.has(key) && equation.body(value, negated)) {
        holds.add(key);
        changed = true;
      }
    }
  }
  return holds;
}

/** Answers of every query of one data set, a model per subject. */
export class Reference {
  private readonly models = new Map<string, ReferenceModel>();

  constructor(
    readonly model: Model,
    readonly relationships: readonly Relationship[],
    readonly now = Date.now(),
  ) {}

  private modelFor(subject: SubjectRef): ReferenceModel {
    const key = `${subject.type}:${subject.id}#${subject.relation ?? ""}`;
    let m = this.models.get(key);
    if (!m) this.models.set(key, (m = new ReferenceModel(this.model, this.relationships, subject, this.now)));
    return m;
  }

  check(resource: { type: string; id: string }, permission: string, subject: SubjectRef): ReferenceAnswer {
    return this.modelFor(subject).answer(resource.type, resource.id, permission);
  }

  /** Ids of `type` where the subject holds `permission`, sorted; "undefined" if any is undefined. */
  lookupResources(type: string, permission: string, subject: SubjectRef): string[] | "undefined" {
    const ids = new Set<string>();
    for (const r of live(this.relationships, this.now)) {
      if (r.resourceType === type) ids.add(r.resourceId);
      if (r.subjectType === type && r.subjectId !== "*") ids.add(r.subjectId);
    }
    if (subject.type === type) ids.add(subject.id);
    const out: string[] = [];
    for (const id of ids) {
      const a = this.check({ type, id }, permission, subject);
      if (a === "undefined") return "undefined";
      if (a) out.push(id);
    }
    return out.sort();
  }

  /**
   * Which subjects of `subjectType` (`#relation` sets when given) hold `permission` on `resource`:
   * each id of the type in the data, and `unseen` (an id in no relationship: it holds only through a
   * wildcard). "undefined" if any of them is.
   */
  lookupSubjects(resource: { type: string; id: string }, permission: string, subjectType: string, subjectRelation: string | undefined, unseen: string): Map<string, boolean> | "undefined" {
    const ids = new Set<string>([unseen]);
    for (const r of live(this.relationships, this.now)) {
      if (r.resourceType === subjectType) ids.add(r.resourceId);
      if (r.subjectType === subjectType && r.subjectId !== "*") ids.add(r.subjectId);
    }
    const out = new Map<string, boolean>();
    for (const id of ids) {
      const a = this.check(resource, permission, subjectRelation ? { type: subjectType, id, relation: subjectRelation } : { type: subjectType, id });
      if (a === "undefined") return "undefined";
      out.set(id, a);
    }
    return out;
  }
}
