// A worker thread's store: every repository call is made by the main thread on the one store the
// process opened (a pool of connections, or an in-process database a thread cannot open twice) and
// its result or error is posted back. What runs on every call stays local: the token codec (pure,
// of the store id) and the store's fixed facts. The change feed is never read here: the main
// thread posts each applied commit (threads/pool.ts).
import type { MessagePort } from "node:worker_threads";
import { StoreError, tokenCodec, type Store } from "@gatehouse/store";
import { EngineError } from "../errors.js";

/** A call a worker asks the main thread to make: `store[path[0]][path[1]](...args)`. */
interface StoreCall {
  id: number;
  path: [string, string];
  args: unknown[];
}

/** The answer: the value, or the error as plain fields (classes do not cross threads). */
interface StoreAnswer {
  id: number;
  value?: unknown;
  error?: { name: string; message: string; code?: string; field?: string; violation?: { field: string; rule: string } };
}

/** What a worker knows of the main thread's store without asking. */
export interface StoreFacts {
  backend: Store["backend"];
  storeId: string;
  domain: string;
}

export function storeFacts(store: Store): StoreFacts {
  return { backend: store.backend, storeId: store.storeId, domain: store.domain };
}

function errorFields(error: unknown): NonNullable<StoreAnswer["error"]> {
  if (error instanceof StoreError) return { name: error.name, message: error.message, code: error.code, ...(error.field ? { field: error.field } : {}) };
  if (error instanceof EngineError) return { name: error.name, message: error.message, code: error.code, ...(error.violation ? { violation: error.violation } : {}) };
  return { name: "Error", message: error instanceof Error ? error.message : String(error) };
}

function revived(fields: NonNullable<StoreAnswer["error"]>): Error {
  if (fields.name === "StoreError") return new StoreError(fields.code as StoreError["code"], fields.message, fields.field);
  if (fields.name === "EngineError") return new EngineError(fields.code as EngineError["code"], fields.message, fields.violation);
  return new Error(fields.message);
}

/** Main thread: answers a worker's store calls on `port` from `store`. */
export function serveStoreCalls(store: Store, port: MessagePort): void {
  port.on("message", (call: StoreCall) => {
    const [repository, method] = call.path;
    const target = (store as unknown as Record<string, Record<string, unknown> | undefined>)[repository];
    const fn = target?.[method];
    const answer = (value: Omit<StoreAnswer, "id">) => port.postMessage({ id: call.id, ...value });
    if (typeof fn !== "function" || (repository === "feed" && method === "follow")) {
      answer({ error: { name: "Error", message: `store.${repository}.${method} is not served to engine threads` } });
      return;
    }
    Promise.resolve()
      .then(() => (fn as (...args: unknown[]) => unknown).apply(target, call.args))
      .then(
        (value) => answer({ value }),
        (error: unknown) => answer({ error: errorFields(error) }),
      );
  });
}

/** Worker thread: a Store whose repository calls are answered by the main thread over `port`. */
export function bridgedStore(facts: StoreFacts, port: MessagePort): Store {
  let next = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  port.on("message", (answer: StoreAnswer) => {
    const waiter = pending.get(answer.id);
    if (!waiter) return;
    pending.delete(answer.id);
    if (answer.error) waiter.reject(revived(answer.error));
    else waiter.resolve(answer.value);
  });
  const repositories = new Map<string, object>();
  const repository = (name: string) =>
    new Proxy(
      {},
      {
        get: (_target, method) =>
          typeof method !== "string"
            ? undefined
            : (...args: unknown[]) =>
                new Promise((resolve, reject) => {
                  const id = next++;
                  pending.set(id, { resolve, reject });
                  port.postMessage({ id, path: [name, method], args } satisfies StoreCall);
                }),
      },
    );
  const local: Record<string, unknown> = {
    ...facts,
    tokens: tokenCodec(facts.storeId),
    // The main thread owns the store: a worker's stop leaves it open.
    close: async () => undefined,
  };
  return new Proxy(local, {
    get: (target, name) => {
      if (typeof name !== "string") return undefined;
      if (name in target) return target[name];
      let found = repositories.get(name);
      if (!found) repositories.set(name, (found = repository(name)));
      return found;
    },
  }) as unknown as Store;
}
