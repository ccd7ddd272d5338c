// In-memory relationship store. Objects are interned to integer nodes; subjects are encoded as
// the node (>= 0) or, for subject sets, as -(userset + 1). Each stored relation keeps two indexes:
// resource → subjects (for check) and subject → resources (for reverse lookups).
import { EvaluationError } from "../errors.js";
import type { Model } from "../model/model.js";
import { bracketedConstruct, formatRelationship, isValidObjectId, WILDCARD_ID, type Relationship } from "../relationship.js";
import { Adjacency, type AdjacencyBase } from "./adjacency.js";
import { NodeTable, type NodeArrays, type NodeRoom } from "./node-table.js";
import { UsersetTable } from "./userset-table.js";

export class RelationshipGraph {
  readonly model: Model;
  /** Set by the owner (for example the store's revision this graph reflects). */
  revision = 0;

  /** Objects: node → type index and id bytes; (type, object id) → node. */
  private nodes = new NodeTable();
  /**
   * Per type: its nodes in interning order. Undefined until first asked for on a graph over arrays
   * this process made (`fromArrays` trusted): built then from the node types (4 bytes per node, per
   * thread sharing the arrays; the checks never read them).
   */
  private typeNodes: IntList[] | undefined;
  /** Per type: node of `type:*`, or -1 (every check asks; an array read instead of a map probe). */
  private readonly wildcardNodes: Int32Array;
  /** Subject sets: userset → node, slot; (node, slot) → userset. */
  private usersets = new UsersetTable();
  /** Per type: the slots that appear as a subject relation (`group#member`), for `usersetCodesOf`. */
  private readonly subjectSlots: number[][];
  /** Per slot (stored relations only): resource node → subject codes, subject code → resource nodes. */
  readonly forward: Array<Adjacency | undefined>;
  readonly reverse: Array<Adjacency | undefined>;
  /** Subset of `forward` holding only subject-set codes, so checks never scan big plain lists for them. */
  readonly forwardSets: Array<Adjacency | undefined>;
  private count = 0;
  private mutationCount = 0;
  /**
   * While a bulk load runs (`startBulk` until `compact`): per stored slot, the (resource, subject)
   * pairs added so far, in growable int32 arrays (8 bytes per relationship) instead of the indexes'
   * per-key lists (a map entry and an array per key), so a snapshot of 100M relationships is held
   * as a few large arrays until `compact` builds every index from them in one pass.
   */
  private bulk: Array<PairList | undefined> | undefined;
  /** Expiring relationships: "slot,resource,subject" → expiry (ms); empty for graphs without expiration. */
  private readonly expiries = new Map<string, { r: Relationship; at: number }>();
  /** Earliest expiry held (Infinity when none), so `expire` is one comparison until then. */
  private nextExpiry = Number.POSITIVE_INFINITY;

  constructor(model: Model) {
    this.model = model;
    this.typeNodes = model.typeNames.map(() => new IntList());
    // Relations some relation allows as a subject set (`type#relation`): one pass over the allowed
    // types, not one per slot (the nested scan cost about 10 ms per graph on the stage schema).
    const subjectSets = new Set<string>();
    for (const r of model.slots) for (const a of r.allowed) if (a.relation !== undefined) subjectSets.add(`${model.typeIndex(a.type)}#${a.relation}`);
    this.subjectSlots = model.typeNames.map((_, t) => model.slots.flatMap((s, slot) => (s.typeIndex === t && subjectSets.has(`${t}#${s.name}`) ? [slot] : [])));
    this.wildcardNodes = new Int32Array(model.typeNames.length).fill(-1);
    this.forward = model.slots.map((s) => (s.stored ? new Adjacency() : undefined));
    this.reverse = model.slots.map((s) => (s.stored ? new Adjacency() : undefined));
    this.forwardSets = model.slots.map((s) => (s.stored && s.allowed.some((a) => a.relation !== undefined) ? new Adjacency() : undefined));
  }

  get size(): number {
    return this.count;
  }

  /** Type index of every node (length = node count); a view valid until the next new object. */
  get nodeType(): Uint16Array {
    return this.nodes.typeView;
  }

  /** Node of every subject set u (code -(u + 1)); a view valid until the next new subject set. */
  get usersetNode(): Int32Array {
    return this.usersets.nodeArray;
  }

  /** Slot (relation) of every subject set u. */
  get usersetSlot(): Uint16Array {
    return this.usersets.slotArray;
  }

  /** Number of objects (nodes). */
  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Bytes of node arrays (object types and ids) the graph holds of its own, not views of a checkpoint or a shared base. */
  get ownNodeBytes(): number {
    return this.nodes.ownBytes;
  }

  /** Object id of a node (decoded from the id bytes: call it only to name an object in an answer). */
  idOf(node: number): string {
    return this.nodes.idOf(node);
  }

  /**
   * The node table's id bytes (node n's id is `bytes[offsets[n], offsets[n + 1])`, ASCII, so byte
   * order is code-unit order): ordering objects by id without decoding them. Valid until the next
   * new object.
   */
  idArrays(): { offsets: Uint32Array; bytes: Uint8Array } {
    return this.nodes.idArrays();
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
    if (this.bulk !== undefined) return this.addBulk(r, slot, resource, subject);
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

  /**
   * Starts a bulk load into this empty graph: every `add` until the next `compact` appends its
   * pair (repeats are dropped at `compact`), and the graph answers nothing meanwhile (`remove`
   * and reads before `compact` are refused).
   */
  startBulk(): void {
    if (this.count !== 0 || this.bulk !== undefined) throw new EvaluationError("invalid-relationship", "a bulk load starts on an empty graph");
    this.bulk = this.model.slots.map((s) => (s.stored ? new PairList() : undefined));
  }

  /** Whether a bulk load is running (see `startBulk`). */
  get loading(): boolean {
    return this.bulk !== undefined;
  }

  private addBulk(r: Relationship, slot: number, resource: number, subject: number): boolean {
    if (r.expiresAt !== undefined) {
      this.expiries.set(`${slot},${resource},${subject}`, { r, at: r.expiresAt });
      if (r.expiresAt < this.nextExpiry) this.nextExpiry = r.expiresAt;
    }
    this.bulk![slot]!.push(resource, subject);
    this.count++;
    this.mutationCount++;
    return true;
  }

  /** Builds every index from the pairs of a bulk load, a slot at a time (its pairs are freed before the next). */
  private finishBulk(): void {
    const bulk = this.bulk!;
    this.bulk = undefined;
    let count = 0;
    for (let slot = 0; slot < bulk.length; slot++) {
      const pairs = bulk[slot];
      if (!pairs) continue;
      bulk[slot] = undefined;
      const resources = pairs.resources.subarray(0, pairs.length);
      const subjects = pairs.subjects.subarray(0, pairs.length);
      const forward = this.forward[slot]!;
      forward.load(resources, subjects, false, true);
      this.reverse[slot]!.load(subjects, resources, false, true);
      const sets = this.forwardSets[slot];
      if (sets) {
        let n = 0;
        for (let i = 0; i < subjects.length; i++) if (subjects[i]! < 0) n++;
        const keys = new Int32Array(n);
        const values = new Int32Array(n);
        for (let i = 0, at = 0; i < subjects.length; i++) {
          if (subjects[i]! < 0) {
            keys[at] = resources[i]!;
            values[at++] = subjects[i]!;
          }
        }
        sets.load(keys, values, false, true);
      }
      count += forward.pairs;
    }
    this.count = count;
    this.nodes.trim();
    for (const list of this.typeNodes ?? []) list.trim();
    this.mutationCount++;
  }

  remove(r: Relationship): boolean {
    if (this.bulk !== undefined) throw new EvaluationError("invalid-relationship", "remove during a bulk load");
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
          const r: Relationship = { resourceType, resourceId: this.nodes.idOf(resource), relation: s.name, ...this.decodeSubject(code) };
          const expiry = this.expiries.size > 0 ? this.expiries.get(`${slot},${resource},${code}`) : undefined;
          if (expiry) r.expiresAt = expiry.at;
          yield r;
        }
      }
    }
  }

  /** Node of an object, or -1 if the object appears in no relationship. */
  nodeOf(typeIndex: number, id: string): number {
    return this.nodes.find(typeIndex, id);
  }

  /** `nodeOf` of two objects, into `out[0]` and `out[1]`: faster than two calls on a large graph (see NodeTable.findPair). */
  nodesOf(typeA: number, idA: string, typeB: number, idB: string, out: Int32Array): void {
    this.nodes.findPair(typeA, idA, typeB, idB, out);
  }

  /** Node of `type:*`, or -1 if no relationship names the wildcard of that type. */
  wildcardNodeOf(typeIndex: number): number {
    return this.wildcardNodes[typeIndex] ?? -1;
  }

  /** Number of known objects of a type (objects are never forgotten, so this only grows). */
  objectCount(typeIndex: number): number {
    return this.typeLists()[typeIndex]?.length ?? 0;
  }

  /** The per-type node lists, built from the node types on first use (see `typeNodes`). */
  private typeLists(): IntList[] {
    return (this.typeNodes ??= typeListsOf(this.nodes.typeView, this.model.typeNames.length, new Int32Array(this.nodes.size)));
  }

  /** Nodes of every known object of a type, in interning order. */
  nodesOfType(typeIndex: number): number[] {
    const list = this.typeLists()[typeIndex];
    return list ? Array.from(list.view()) : [];
  }

  /** Userset code of (node, slot), or NOT_FOUND. */
  usersetCode(node: number, slot: number): number {
    const id = this.usersets.find(node, slot);
    return id < 0 ? NOT_FOUND : -(id + 1);
  }

  /** Userset codes of every subject set of `node` that appears in some relationship. */
  usersetCodesOf(node: number): number[] {
    const codes: number[] = [];
    const type = this.nodes.typeOf(node);
    if (type === undefined) return codes;
    for (const slot of this.subjectSlots[type]!) {
      const id = this.usersets.find(node, slot);
      if (id >= 0) codes.push(-(id + 1));
    }
    return codes;
  }

  /** Ids of every known object of a type (objects that appear in at least one relationship, now or before). */
  objectIds(typeIndex: number): string[] {
    const list = this.typeLists()[typeIndex];
    const ids: string[] = [];
    if (list) for (const node of list.view()) if (node !== this.wildcardNodes[typeIndex]) ids.push(this.nodes.idOf(node));
    return ids;
  }

  decodeSubject(code: number): { subjectType: string; subjectId: string; subjectRelation?: string } {
    const { model } = this;
    if (code >= 0) return { subjectType: model.typeNames[this.nodes.typeOf(code)]!, subjectId: this.nodes.idOf(code) };
    const u = -code - 1;
    const node = this.usersetNode[u]!;
    return {
      subjectType: model.typeNames[this.nodes.typeOf(node)]!,
      subjectId: this.nodes.idOf(node),
      subjectRelation: model.slots[this.usersetSlot[u]!]!.name,
    };
  }

  internNode(typeIndex: number, id: string): number {
    const known = this.nodes.size;
    const node = this.nodes.intern(typeIndex, id);
    if (node === known) {
      // Lists not built yet are built from the node types, this node included.
      if (this.typeNodes !== undefined) this.typeNodes[typeIndex]!.push(node);
      if (id === WILDCARD_ID) this.wildcardNodes[typeIndex] = node;
    }
    return node;
  }

  private internUserset(node: number, slot: number): number {
    return -(this.usersets.intern(node, slot) + 1);
  }

  /**
   * Folds every index's recent changes into its compact base (bulk loads leave none; a graph
   * built relationship by relationship, from a snapshot, has everything to fold). Checks read
   * a compact base with fewer memory accesses than the per-key lists of recent changes.
   */
  compact(): void {
    if (this.bulk !== undefined) return this.finishBulk();
    for (const index of [...this.forward, ...this.reverse, ...this.forwardSets]) index?.compact();
  }

  /**
   * The graph's arrays as they are held (after folding every index's recent changes), for
   * `encodeGraph`; `fromArrays` takes them back. Views, not copies: encode them before the next change.
   */
  toArrays(): GraphArrays {
    const adjacencies: GraphArrays["adjacencies"] = [];
    for (let slot = 0; slot < this.forward.length; slot++) {
      const forward = this.forward[slot];
      if (!forward) continue;
      const sets = this.forwardSets[slot]?.base();
      adjacencies.push({ slot, forward: forward.base(), reverse: this.reverse[slot]!.base(), ...(sets ? { sets } : {}) });
    }
    const expiring = [...this.expiries.values()].map(({ r, at }) => ({ ...r, expiresAt: at }));
    return { nodes: this.nodes.arrays(), usersetNode: this.usersetNode, usersetSlot: this.usersetSlot, adjacencies, ...(expiring.length > 0 ? { expiring } : {}) };
  }

  /**
   * A graph over `toArrays` output of a graph of the same model, with the same numbering. The
   * arrays are used as they are (never written to), after checks that every index read from them
   * is in range and every hash probe ends, so damaged arrays fail here instead of building a graph
   * that reads out of bounds or loops. One pass over each array, no per-object allocation.
   * `options.trusted`: the arrays are this process's own (`toArrays` of a graph here, copied into
   * shared memory), used without those checks. `options.shared`: other threads answer from the same
   * arrays and the owner replaces them whole, so reads never fold an index into a private copy
   * (see `Adjacency.keepBase`). `options.room`: what objects added later do with room after the
   * node arrays (NodeRoom; default: copy the arrays first).
   */
  static fromArrays(model: Model, arrays: GraphArrays, options: { trusted?: boolean; shared?: boolean; room?: NodeRoom } = {}): RelationshipGraph {
    const graph = new RelationshipGraph(model);
    const bad = (why: string): never => {
      throw new EvaluationError("invalid-relationship", `graph arrays are inconsistent: ${why}`);
    };
    const trusted = options.trusted === true;
    // The per-type node lists below need one int per node: the node check uses that room first.
    const byType = trusted ? undefined : new Int32Array(arrays.nodes.types.length);
    const nodeReason = byType === undefined ? undefined : NodeTable.invalid(arrays.nodes, model.typeNames.length, byType);
    if (nodeReason) bad(nodeReason);
    const nodes = arrays.nodes.nodes;
    graph.nodes = new NodeTable(arrays.nodes, options.room);
    const usersets = trusted ? new UsersetTable(arrays.usersetNode, arrays.usersetSlot) : UsersetTable.fromArrays(arrays.usersetNode, arrays.usersetSlot, nodes, model.slots.length);
    if (typeof usersets === "string") return bad(usersets);
    graph.usersets = usersets;
    const sets = arrays.usersetNode.length;
    // Per type, its nodes in node order (built on first use for a trusted graph: see `typeNodes`).
    graph.typeNodes = byType === undefined ? undefined : typeListsOf(arrays.nodes.types, model.typeNames.length, byType);
    for (let t = 0; t < model.typeNames.length; t++) graph.wildcardNodes[t] = graph.nodes.find(t, WILDCARD_ID);
    const seen = new Set<number>();
    for (const { slot, forward, reverse, sets: setBase } of arrays.adjacencies) {
      if (!graph.forward[slot] || seen.has(slot)) bad(`adjacency of slot ${slot}`);
      seen.add(slot);
      const take = (base: AdjacencyBase, keyFrom: number, keyTo: number, valueFrom: number, valueTo: number, what: string): Adjacency => {
        const adjacency = trusted ? Adjacency.trusted(base) : Adjacency.fromBase(base, keyFrom, keyTo, valueFrom, valueTo);
        if (typeof adjacency === "string") return bad(`${what} of slot ${slot}: ${adjacency}`);
        if (options.shared) adjacency.keepBase();
        return adjacency;
      };
      const f = take(forward, 0, nodes, -sets, nodes, "forward index");
      const r = take(reverse, -sets, nodes, 0, nodes, "reverse index");
      if (f.pairs !== r.pairs) bad(`indexes of slot ${slot} differ in size`);
      graph.forward[slot] = f;
      graph.reverse[slot] = r;
      if (setBase) {
        if (!graph.forwardSets[slot]) bad(`slot ${slot} holds no subject sets`);
        graph.forwardSets[slot] = take(setBase, 0, nodes, -sets, 0, "subject-set index");
      }
      graph.count += f.pairs;
    }
    // Expiries ride on edges already loaded: add() only records them (and refuses unknown ones).
    for (const r of arrays.expiring ?? []) {
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
    if (!wildcard && !isValidObjectId(r.subjectId)) {
      const construct = bracketedConstruct(r.subjectId);
      return bad("invalid-object-id", construct ? `the subject id carries ${construct}` : `invalid subject id '${r.subjectId}'`);
    }
    const subjectRelation = r.subjectRelation === "" || r.subjectRelation === "..." ? undefined : r.subjectRelation;
    if (wildcard && subjectRelation !== undefined) return bad("invalid-relationship", "a wildcard subject cannot have a subject relation");
    const matching = model.slots[slot]!.allowed.filter((a) => a.type === r.subjectType && a.wildcard === wildcard && a.relation === subjectRelation);
    if (r.expiresAt !== undefined && matching.length > 0 && !matching.some((a) => a.expiration)) {
      return bad("expiration-not-allowed", `'${r.resourceType}#${r.relation}' does not allow an expiration on this subject type (declare it 'with expiration')`);
    }
    const shape = `${r.subjectType}${wildcard ? ":*" : subjectRelation ? `#${subjectRelation}` : ""}`;
    if (intern && r.expiresAt === undefined && matching.length > 0 && matching.every((a) => a.expiration)) {
      // SpiceDB refuses the write (the type is allowed only with an expiry) and names the declared shape.
      return bad("subject-type-not-allowed", `subjects of type \`${shape}\` are not allowed on relation \`${r.resourceType}#${r.relation}\`; did you mean \`${shape} with expiration\`?`);
    }
    if (r.expiresAt !== undefined && !Number.isFinite(r.expiresAt)) return bad("invalid-relationship", "expiresAt must be a finite time in milliseconds");
    if (matching.length === 0) {
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

/** A graph's arrays (see `toArrays`); node n is (nodes.types[n], its id bytes), subject set u is code -(u + 1). */
export interface GraphArrays {
  nodes: NodeArrays;
  usersetNode: Int32Array;
  usersetSlot: Uint16Array;
  /** Per stored slot: resource → subject codes, subject code → resources, and resource → subject-set codes (slots that allow sets). */
  adjacencies: Array<{ slot: number; forward: AdjacencyBase; reverse: AdjacencyBase; sets?: AdjacencyBase }>;
  /** The relationships among the edges that expire, with their `expiresAt` (few: listed whole). */
  expiring?: Relationship[];
}

/** Per type, its nodes in node order: one counting pass, one list per type over `room` (one int per node). */
function typeListsOf(types: Uint16Array, typeCount: number, room: Int32Array): IntList[] {
  const nodes = types.length;
  const perType = new Int32Array(typeCount + 1);
  for (let n = 0; n < nodes; n++) perType[types[n]! + 1]!++;
  for (let t = 1; t < perType.length; t++) perType[t]! += perType[t - 1]!;
  const next = perType.slice(0, -1);
  for (let n = 0; n < nodes; n++) room[next[types[n]!]!++] = n;
  return Array.from({ length: typeCount }, (_, t) => new IntList(room.subarray(perType[t]!, perType[t + 1]!)));
}

/** Growable parallel int32 arrays of (resource, subject) pairs for a bulk load. */
class PairList {
  resources = new Int32Array(256);
  subjects = new Int32Array(256);
  length = 0;

  push(resource: number, subject: number): void {
    if (this.length === this.resources.length) {
      // Grows by half: a 100M-pair list overshoots by at most a third instead of doubling.
      const capacity = Math.ceil(this.length * 1.5);
      const resources = new Int32Array(capacity);
      resources.set(this.resources);
      this.resources = resources;
      const subjects = new Int32Array(capacity);
      subjects.set(this.subjects);
      this.subjects = subjects;
    }
    this.resources[this.length] = resource;
    this.subjects[this.length++] = subject;
  }
}

/** A growable list of int32 (starting as a view over an array it never writes to). */
class IntList {
  private data: Int32Array;
  length: number;

  constructor(data?: Int32Array) {
    this.data = data ?? new Int32Array(0);
    this.length = this.data.length;
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const data = new Int32Array(Math.max(16, this.data.length * 2));
      data.set(this.data);
      this.data = data;
    }
    this.data[this.length++] = value;
  }

  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  /** Drops the spare capacity (after a bulk load). */
  trim(): void {
    if (this.data.length > this.length && this.data.buffer.byteLength === this.data.byteLength) this.data = this.data.slice(0, this.length);
  }
}

/** Marker for "this subject was never interned", distinct from every node (>= 0) and userset (< 0) code. */
export const NOT_FOUND = Number.NEGATIVE_INFINITY;
