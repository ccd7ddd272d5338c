// Multimap from an integer key to a list of integer values. Short lists are scanned; lists that
// grow past a threshold also get a Set so membership stays O(1) for big groups.

const SET_THRESHOLD = 24;

export class Adjacency {
  private readonly lists = new Map<number, number[]>();
  private readonly sets = new Map<number, Set<number>>();

  get(key: number): readonly number[] | undefined {
    return this.lists.get(key);
  }

  has(key: number, value: number): boolean {
    const set = this.sets.get(key);
    if (set) return set.has(value);
    const list = this.lists.get(key);
    return list !== undefined && list.includes(value);
  }

  /** Adds the pair; false if it was already present. */
  add(key: number, value: number): boolean {
    const list = this.lists.get(key);
    if (!list) {
      this.lists.set(key, [value]);
      return true;
    }
    if (this.has(key, value)) return false;
    list.push(value);
    const set = this.sets.get(key);
    if (set) set.add(value);
    else if (list.length > SET_THRESHOLD) this.sets.set(key, new Set(list));
    return true;
  }

  /** Removes the pair; false if it was absent. */
  remove(key: number, value: number): boolean {
    const list = this.lists.get(key);
    if (!list) return false;
    const at = list.indexOf(value);
    if (at < 0) return false;
    // Order does not matter: move the last element into the hole.
    list[at] = list[list.length - 1]!;
    list.pop();
    if (list.length === 0) {
      this.lists.delete(key);
      this.sets.delete(key);
    } else {
      this.sets.get(key)?.delete(value);
    }
    return true;
  }

  keys(): IterableIterator<number> {
    return this.lists.keys();
  }

  entries(): IterableIterator<[number, number[]]> {
    return this.lists.entries();
  }
}
