// In-memory relationship store. Objects are interned to integer nodes; subjects are encoded as
// the node (>= 0) or, for subject sets, as -(userset + 1). Each stored relation keeps two indexes:
// resource → subjects (for check) and subject → resources (for reverse lookups).
import { EvaluationError } from "../errors.js";
import type { Model } from "../model/model.js";
import { formatRelationship, isValidObjectId, WILDCARD_ID, type Relationship } from "../relationship.js";
import { Adjacency } from "./adjacency.js";
import { IdIndex } from "./id-index.js";

export class RelationshipGraph {
  readonly model: Model;
  /** Set by the owner (for example the store's revision this graph reflects). */
  revision = 0;

  /** node → type index / object id. */
  readonly nodeType: number[] = [];
  readonly nodeId: string[] = [];
  /** (type, object id) → node. */
  private ids = new IdIndex(this.nodeType, this.nodeId);
  /** Per type: its nodes in interning order. */
  private readonly typeNodes: number[][];
  /** Per type: node of `type:*`, or -1 (every check asks; an array read instead of a map probe). */
  private readonly wildcardNodes: Int32Array;
  /** Subject sets: node → (slot → userset); userset → node, slot. */
  private readonly usersetIndex = new Map<number, Map<number, number>>();
  readonly usersetNode: number[] = [];
  readonly usersetSlot: number[] = [];
  /** Per slot (stored relations only): resource node → subject codes, subject code → resource nodes. */
  readonly forward: Array<Adjacency | undefined>;
  readonly reverse: Array<Adjacency | undefined>;
  /** Subset of `forward` holding only subject-set codes, so checks never scan big plain lists for them. */
  readonly forwardSets: Array<Adjacency | undefined>;
  private count = 0;
  private mutationCount = 0;
  /** Expiring relationships: "slot,resource,subject" → expiry (ms); empty for graphs without expiration. */
  private readonly expiries = new Map<string, { r: Relationship; at: number }>();
  /** Earliest expiry held (Infinity when none), so `expire` is one comparison until then. */
  private nextExpiry = Number.POSITIVE_INFINITY;

  constructor(model: Model) {
    this.model = model;
    this.typeNodes = model.typeNames.map(() => []);
    this.wildcardNodes = new Int32Array(model.typeNames.length).fill(-1);
    this.forward = model.slots.map((s) => (s.stored ? new Adjacency() : undefined));
    this.reverse = model.slots.map((s) => (s.stored ? new Adjacency() : undefined));
    this.forwardSets = model.slots.map((s) => (s.stored && s.allowed.some((a) => a.relation !== undefined) ? new Adjacency() : undefined));
  }

  get size(): number {
    return this.count;
  }

  /**
   * Incremented by every add or remove that changes the graph (unlike `revision`, which the owner
   * sets). Caches derived from the graph's contents key on it, so any write invalidates them.
   */
  get mutations(): number {
    return this.mutationCount;
  }

  /** Number of relationships that carry an expiry. */
  get expiring(): number {
    return this.expiries.size;
  }

  /** Expiry (ms) of the stored edge `slot, resource → subject code`, if it has one (explain). */
  expiryOf(slot: number, resource: number, subject: number): number | undefined {
    return this.expiries.size > 0 ? this.expiries.get(`${slot},${resource},${subject}`)?.at : undefined;
  }

  /**
   * Adds r, or updates its expiry if already present (like SpiceDB's TOUCH). Returns false when
   * nothing changed.
   */
  add(r: Relationship): boolean {
    const { slot, resource, subject } = this.encode(r, true);
    if (r.expiresAt !== undefined || this.expiries.size > 0) {
      const key = `${slot},${resource},${subject}`;
      const before = this.expiries.get(key)?.at;
      if (r.expiresAt !== undefined) {
        this.expiries.set(key, { r, at: r.expiresAt });
        if (r.expiresAt < this.nextExpiry) this.nextExpiry = r.expiresAt;
      } else this.expiries.delete(key);
      if (before !== r.expiresAt && this.forward[slot]!.has(resource, subject)) {
        this.mutationCount++;
        return true;
      }
    }
    if (!this.forward[slot]!.add(resource, subject)) return false;
    this.reverse[slot]!.add(subject, resource);
    if (subject < 0) this.forwardSets[slot]!.add(resource, subject);
    this.count++;
    this.mutationCount++;
    return true;
  }

  remove(r: Relationship): boolean {
    const { slot, resource, subject } = this.encode(r, false);
    if (resource < 0 || subject === NOT_FOUND) return false;
    if (!this.forward[slot]!.remove(resource, subject)) return false;
    this.reverse[slot]!.remove(subject, resource);
    if (subject < 0) this.forwardSets[slot]!.remove(resource, subject);
    if (this.expiries.size > 0) this.expiries.delete(`${slot},${resource},${subject}`);
    this.count--;
    this.mutationCount++;
    return true;
  }

  /**
   * Removes every relationship whose expiry is at or before `now` (ms since the epoch); returns how
   * many. Evaluations call it with their evaluation time, so an expired grant is never used; it is
   * a single comparison while nothing is due.
   */
  expire(now: number): number {
    if (now < this.nextExpiry) return 0;
    let removed = 0;
    let next = Number.POSITIVE_INFINITY;
    for (const { r, at } of [...this.expiries.values()]) {
      if (at <= now) {
        if (this.remove(r)) removed++;
      } else if (at < next) next = at;
    }
    this.nextExpiry = next;
    return removed;
  }

  has(r: Relationship): boolean {
    const { slot, resource, subject } = this.encode(r, false);
    if (resource < 0 || subject === NOT_FOUND) return false;
    return this.forward[slot]!.has(resource, subject);
  }

  /** Every stored relationship (order unspecified). */
  *relationships(): IterableIterator<Relationship> {
    const { model } = this;
    for (let slot = 0; slot < model.slots.length; slot++) {
      const index = this.forward[slot];
      if (!index) continue;
      const s = model.slots[slot]!;
      const resourceType = model.typeNames[s.typeIndex]!;
      for (const [resource, subjects] of index.entries()) {
        for (const code of subjects) {
          const r: Relationship = { resourceType, resourceId: this.nodeId[resource]!, relation: s.name, ...this.decodeSubject(code) };
          const expiry = this.expiries.size > 0 ? this.expiries.get(`${slot},${resource},${code}`) : undefined;
          if (expiry) r.expiresAt = expiry.at;
          yield r;
        }
      }
    }
  }

  /** Node of an object, or -1 if the object appears in no relationship. */
  nodeOf(typeIndex: number, id: string): number {
    return this.ids.get(typeIndex, id);
  }

  /** Node of `type:*`, or -1 if no relationship names the wildcard of that type. */
  wildcardNodeOf(typeIndex: number): number {
    return this.wildcardNodes[typeIndex] ?? -1;
  }

  /** Number of known objects of a type (objects are never forgotten, so this only grows). */
  objectCount(typeIndex: number): number {
    return this.typeNodes[typeIndex]?.length ?? 0;
  }

  /** Nodes of every known object of a type, in interning order. */
  nodesOfType(typeIndex: number): number[] {
    return [...(this.typeNodes[typeIndex] ?? [])];
  }

  /** Userset code of (node, slot), or NOT_FOUND. */
  usersetCode(node: number, slot: number): number {
    const id = this.usersetIndex.get(node)?.get(slot);
    return id === undefined ? NOT_FOUND : -(id + 1);
  }

  /** Userset codes of every subject set of `node` that appears in some relationship. */
  usersetCodesOf(node: number): number[] {
    return [...(this.usersetIndex.get(node)?.values() ?? [])].map((id) => -(id + 1));
  }

  /** Ids of every known object of a type (objects that appear in at least one relationship, now or before). */
  objectIds(typeIndex: number): string[] {
    return (this.typeNodes[typeIndex] ?? []).map((node) => this.nodeId[node]!).filter((id) => id !== WILDCARD_ID);
  }

  decodeSubject(code: number): { subjectType: string; subjectId: string; subjectRelation?: string } {
    const { model } = this;
    if (code >= 0) return { subjectType: model.typeNames[this.nodeType[code]!]!, subjectId: this.nodeId[code]! };
    const u = -code - 1;
    const node = this.usersetNode[u]!;
    return {
      subjectType: model.typeNames[this.nodeType[node]!]!,
      subjectId: this.nodeId[node]!,
      subjectRelation: model.slots[this.usersetSlot[u]!]!.name,
    };
  }

  internNode(typeIndex: number, id: string): number {
    let node = this.ids.get(typeIndex, id);
    if (node < 0) {
      node = this.nodeType.length;
      this.nodeType.push(typeIndex);
      this.nodeId.push(id);
      this.ids.insert(node);
      this.typeNodes[typeIndex]!.push(node);
      if (id === WILDCARD_ID) this.wildcardNodes[typeIndex] = node;
    }
    return node;
  }

  private internUserset(node: number, slot: number): number {
    let bySlot = this.usersetIndex.get(node);
    if (!bySlot) this.usersetIndex.set(node, (bySlot = new Map()));
    let id = bySlot.get(slot);
    if (id === undefined) {
      id = this.usersetNode.length;
      bySlot.set(slot, id);
      this.usersetNode.push(node);
      this.usersetSlot.push(slot);
    }
    return -(id + 1);
  }

  /**
   * Folds every index's recent changes into its compact base (bulk loads leave none; a graph
   * built relationship by relationship, from a snapshot, has everything to fold). Checks read
   * a compact base with fewer memory accesses than the per-key lists of recent changes.
   */
  compact(): void {
    for (const index of [...this.forward, ...this.reverse, ...this.forwardSets]) index?.compact();
  }

  /** The graph as flat tables (ids in interning order, edges per stored slot), for `encodeGraph`. */
  toTables(): GraphTables {
    const edges: GraphTables["edges"] = [];
    for (let slot = 0; slot < this.forward.length; slot++) {
      const index = this.forward[slot];
      if (!index) continue;
      let n = 0;
      for (const list of index.entries()) n += list[1].length;
      const resources = new Int32Array(n);
      const subjects = new Int32Array(n);
      let at = 0;
      for (const [resource, list] of index.entries()) {
        for (const subject of list) {
          resources[at] = resource;
          subjects[at++] = subject;
        }
      }
      edges.push({ slot, resources, subjects });
    }
    const expiring = [...this.expiries.values()].map(({ r, at }) => ({ ...r, expiresAt: at }));
    return { nodeType: this.nodeType, nodeId: this.nodeId, idIndex: this.ids.table, usersetNode: this.usersetNode, usersetSlot: this.usersetSlot, edges, expiring };
  }

  /**
   * Rebuilds a graph from `toTables` output of a graph over the same model, with the same node and
   * userset numbering. Trusts the tables to hold no pair twice (callers verify integrity first) but checks
   * every index is in range, so damaged tables fail instead of building a wrong graph.
   */
  static fromTables(model: Model, tables: GraphTables): RelationshipGraph {
    const graph = new RelationshipGraph(model);
    const nodes = tables.nodeType.length;
    const bad = (why: string): never => {
      throw new EvaluationError("invalid-relationship", `graph tables are inconsistent: ${why}`);
    };
    if (tables.nodeId.length !== nodes) bad("node id count");
    const table = tables.idIndex;
    const reason = table && IdIndex.invalid(table, nodes);
    if (reason) bad(reason);
    for (let node = 0; node < nodes; node++) {
      const typeIndex = tables.nodeType[node]!;
      if (typeIndex >= model.typeNames.length) bad(`node ${node} has type ${typeIndex}`);
      const id = tables.nodeId[node]!;
      graph.nodeType.push(typeIndex);
      graph.nodeId.push(id);
      graph.typeNodes[typeIndex]!.push(node);
      if (id === WILDCARD_ID) graph.wildcardNodes[typeIndex] = node;
      if (!table) graph.ids.insert(node);
    }
    // A carried id index is taken as it is: no string is hashed (the point of carrying it).
    if (table) graph.ids = new IdIndex(graph.nodeType, graph.nodeId, table);
    if (tables.usersetNode.length !== tables.usersetSlot.length) bad("userset count");
    for (let u = 0; u < tables.usersetNode.length; u++) {
      const node = tables.usersetNode[u]!;
      const slot = tables.usersetSlot[u]!;
      if (node < 0 || node >= nodes || slot >= model.slots.length) bad(`userset ${u}`);
      let bySlot = graph.usersetIndex.get(node);
      if (!bySlot) graph.usersetIndex.set(node, (bySlot = new Map()));
      bySlot.set(slot, u);
      graph.usersetNode.push(node);
      graph.usersetSlot.push(slot);
    }
    const usersets = tables.usersetNode.length;
    for (const { slot, resources, subjects } of tables.edges) {
      const forward = graph.forward[slot];
      if (!forward || resources.length !== subjects.length) bad(`edges of slot ${slot}`);
      let sets = 0;
      for (let i = 0; i < resources.length; i++) {
        if (resources[i]! < 0 || resources[i]! >= nodes || subjects[i]! >= nodes || subjects[i]! < -usersets) bad(`edge ${i} of slot ${slot}`);
        if (subjects[i]! < 0) sets++;
      }
      // Bulk loads: typed-array passes, no map entry or list per key (what makes a checkpoint fast).
      forward!.load(resources, subjects);
      graph.reverse[slot]!.load(subjects, resources);
      if (sets > 0) {
        const setIndex = graph.forwardSets[slot] ?? bad(`slot ${slot} holds no subject sets`);
        const setResources = new Int32Array(sets);
        const setCodes = new Int32Array(sets);
        for (let i = 0, at = 0; i < resources.length; i++) {
          if (subjects[i]! >= 0) continue;
          setResources[at] = resources[i]!;
          setCodes[at++] = subjects[i]!;
        }
        setIndex.load(setResources, setCodes);
      }
      graph.count += resources.length;
    }
    // Expiries ride on edges already loaded: add() only records them (and refuses unknown ones).
    for (const r of tables.expiring ?? []) {
      if (r.expiresAt === undefined || !graph.has(r)) bad("an expiring relationship is not among the edges");
      graph.add(r);
    }
    graph.mutationCount++;
    return graph;
  }

  /** Validates r against the model and encodes it; with intern=false unknown objects give -1/NOT_FOUND. */
  private encode(r: Relationship, intern: boolean): { slot: number; resource: number; subject: number } {
    const { model } = this;
    const bad = (code: ConstructorParameters<typeof EvaluationError>[0], why: string): never => {
      throw new EvaluationError(code, `invalid relationship ${formatRelationship(r)}: ${why}`);
    };
    const typeIndex = model.typeIndex(r.resourceType);
    if (typeIndex === undefined) return bad("unknown-type", `unknown resource type '${r.resourceType}'`);
    const slot = model.slotOf(typeIndex, r.relation);
    if (slot < 0) return bad("unknown-relation", `'${r.resourceType}' has no relation '${r.relation}'`);
    if (!model.slots[slot]!.stored) return bad("write-to-permission", `'${r.relation}' is a permission, relationships can only be written to relations`);
    if (!isValidObjectId(r.resourceId) || r.resourceId === WILDCARD_ID) return bad("invalid-object-id", `invalid resource id '${r.resourceId}'`);
    const wildcard = r.subjectId === WILDCARD_ID;
    if (!wildcard && !isValidObjectId(r.subjectId)) return bad("invalid-object-id", `invalid subject id '${r.subjectId}'`);
    const subjectRelation = r.subjectRelation === "" || r.subjectRelation === "..." ? undefined : r.subjectRelation;
    if (wildcard && subjectRelation !== undefined) return bad("invalid-relationship", "a wildcard subject cannot have a subject relation");
    const matching = model.slots[slot]!.allowed.filter((a) => a.type === r.subjectType && a.wildcard === wildcard && a.relation === subjectRelation);
    if (r.expiresAt !== undefined && matching.length > 0 && !matching.some((a) => a.expiration)) {
      return bad("expiration-not-allowed", `'${r.resourceType}#${r.relation}' does not allow an expiration on this subject type (declare it 'with expiration')`);
    }
    if (r.expiresAt !== undefined && !Number.isFinite(r.expiresAt)) return bad("invalid-relationship", "expiresAt must be a finite time in milliseconds");
    if (matching.length === 0) {
      const shape = `${r.subjectType}${wildcard ? ":*" : subjectRelation ? `#${subjectRelation}` : ""}`;
      return bad("subject-type-not-allowed", `'${r.resourceType}#${r.relation}' does not allow subjects of type ${shape}`);
    }
    const subjectTypeIndex = model.typeIndex(r.subjectType)!;
    if (!intern) {
      const resource = this.nodeOf(typeIndex, r.resourceId);
      const subjectNode = this.nodeOf(subjectTypeIndex, r.subjectId);
      if (subjectNode < 0) return { slot, resource, subject: NOT_FOUND };
      const subject = subjectRelation === undefined ? subjectNode : this.usersetCode(subjectNode, model.slotOf(subjectTypeIndex, subjectRelation));
      return { slot, resource, subject };
    }
    const resource = this.internNode(typeIndex, r.resourceId);
    const subjectNode = this.internNode(subjectTypeIndex, r.subjectId);
    const subject = subjectRelation === undefined ? subjectNode : this.internUserset(subjectNode, model.slotOf(subjectTypeIndex, subjectRelation));
    return { slot, resource, subject };
  }
}

/** A graph's contents as flat arrays; node n is (nodeType[n], nodeId[n]), subject set u is code -(u + 1). */
export interface GraphTables {
  nodeType: ArrayLike<number>;
  nodeId: readonly string[];
  /** The id index's table over these nodes (`IdIndex`); rebuilt from the ids when absent. */
  idIndex?: Int32Array;
  usersetNode: ArrayLike<number>;
  usersetSlot: ArrayLike<number>;
  /** Per stored slot: pairs (resources[i], subjects[i]) with subject codes as in the graph. */
  edges: Array<{ slot: number; resources: Int32Array; subjects: Int32Array }>;
  /** The relationships among the edges that expire, with their `expiresAt` (few: listed whole). */
  expiring?: Relationship[];
}

/** Marker for "this subject was never interned", distinct from every node (>= 0) and userset (< 0) code. */
export const NOT_FOUND = Number.NEGATIVE_INFINITY;
