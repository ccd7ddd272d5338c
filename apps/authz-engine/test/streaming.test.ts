import { EventEmitter } from "node:events";
import type { ServerWritableStream } from "@grpc/grpc-js";
import type { StreamedListObjectsResponse } from "@gatehouse/proto";
import { describe, expect, it } from "vitest";
import { decodeCursor } from "../src/commands/cursor.js";
import { outputFor, STREAM_WINDOW } from "../src/grpc/calls.js";
import { checkHandlers } from "../src/handlers/checks.js";
import { listHandlers } from "../src/handlers/lists.js";
import { hostIn, principal, readGrant } from "./helpers.js";
import { asResponse, hostsRequest, listContext } from "./list-context.js";

/** A ServerWritableStream stand-in: records messages; their send callbacks complete on demand. */
function fakeCall(withSink = true) {
  const emitter = new EventEmitter() as EventEmitter & { cancelled: boolean; call?: unknown; write?: (m: unknown) => boolean };
  emitter.cancelled = false;
  const sent: unknown[] = [];
  const callbacks: (() => void)[] = [];
  if (withSink) emitter.call = { sendMessage: (message: unknown, callback: () => void) => (sent.push(message), callbacks.push(callback)) };
  else emitter.write = (message: unknown) => (sent.push(message), sent.length % 4 !== 0);
  const complete = (n: number) => callbacks.splice(0, n).forEach((callback) => callback());
  return { call: emitter as unknown as ServerWritableStream<unknown, unknown>, emitter, sent, complete };
}

const settled = async (promise: Promise<void> | void) => {
  let done = false;
  void Promise.resolve(promise).then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe("stream output", () => {
  it("hands messages over in order without waiting, until the window is full", async () => {
    const { call, sent, complete } = fakeCall();
    let counted = 0;
    const output = outputFor(call, () => counted++);
    for (let i = 0; i < STREAM_WINDOW - 1; i++) expect(output.write(i)).toBeUndefined();
    const full = output.write(STREAM_WINDOW - 1);
    expect(full).toBeInstanceOf(Promise);
    expect(await settled(full)).toBe(false);
    complete(STREAM_WINDOW / 2 - 1);
    expect(await settled(full)).toBe(false);
    complete(1);
    expect(await settled(full)).toBe(true);
    expect(sent).toEqual(Array.from({ length: STREAM_WINDOW }, (_, i) => i));
    expect(counted).toBe(STREAM_WINDOW);
    const flushed = output.flush();
    expect(await settled(flushed)).toBe(false);
    complete(STREAM_WINDOW);
    expect(await settled(flushed)).toBe(true);
  });

  it("stops waiting when the call is cancelled", async () => {
    const { call, emitter } = fakeCall();
    const output = outputFor(call, () => {});
    let pending: Promise<void> | void = undefined;
    for (let i = 0; i < STREAM_WINDOW; i++) pending = output.write(i);
    expect(await settled(pending)).toBe(false);
    emitter.cancelled = true;
    emitter.emit("cancelled", "cancelled");
    expect(await settled(pending)).toBe(true);
    expect(output.flush()).toBeUndefined();
  });

  it("falls back to the Writable and its 'drain'", async () => {
    const { call, emitter, sent } = fakeCall(false);
    const output = outputFor(call, () => {});
    expect(output.write("a")).toBeUndefined();
    expect(output.write("b")).toBeUndefined();
    expect(output.write("c")).toBeUndefined();
    const full = output.write("d");
    expect(await settled(full)).toBe(false);
    emitter.emit("drain");
    expect(await settled(full)).toBe(true);
    expect(sent).toEqual(["a", "b", "c", "d"]);
  });
});

describe("StreamedListObjects pages", () => {
  const HOSTS = 2500;
  const ids = Array.from({ length: HOSTS }, (_, i) => `host-${String(i).padStart(5, "0")}`);

  const context = () => listContext([...readGrant("ws-1", "dana"), ...ids.map((id) => hostIn(id, "ws-1"))], 10_000);
  const request = (limit: number, continuationToken?: string) => hostsRequest("dana", limit, continuationToken);

  it("sends the first item before producing the rest, and waits while the writer applies back-pressure", async () => {
    const handlers = listHandlers(await context());
    const received: StreamedListObjectsResponse[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const done = handlers.streamedListObjects(request(HOSTS), { identity: null, cancelled: () => false }, (message) => {
      received.push(asResponse(message));
      return received.length === 1 ? gate : undefined;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toHaveLength(1);
    expect(received[0]!.object!.resourceId).toBe(ids[0]);
    release();
    await done;
    expect(received.map((item) => item.object!.resourceId)).toEqual(ids);
  });

  it("pages in order with a token on every item, ends with an empty page and never repeats one", async () => {
    const handlers = listHandlers(await context());
    const seen: string[] = [];
    const pages: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const items: StreamedListObjectsResponse[] = [];
      await handlers.streamedListObjects(request(1000, token), { identity: null, cancelled: () => false }, (message) => void items.push(asResponse(message)));
      if (items.length === 0) break;
      for (const item of items) {
        const cursor = item.pagination!.continuationToken;
        expect(cursor).toBeTruthy();
        expect(decodeCursor(cursor)).toBe(item.object!.resourceId);
        expect(item.consistencyToken!.token).toBe("t1");
      }
      const first = items[0]!.object!.resourceId;
      expect(pages).not.toContain(first);
      pages.push(first);
      seen.push(...items.map((item) => item.object!.resourceId));
      token = items.at(-1)!.pagination!.continuationToken;
    }
    expect(pages).toHaveLength(3);
    expect(seen).toEqual(ids);
  });

  it("answers a Check without a promise when the graph already satisfies the requirement, and reuses the response", async () => {
    const checks = checkHandlers(await context(), "redhat");
    const request = { object: { resourceType: "host", resourceId: ids[7]!, reporter: { type: "hbi" } }, relation: "view", subject: { resource: principal("dana") } };
    const first = checks.check(request);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toEqual({ allowed: 1, consistencyToken: { token: "t1" } });
    expect(checks.check({ ...request, consistency: { atLeastAsFresh: { token: "t1" } } })).toBe(first);
    const denied = checks.check({ ...request, subject: { resource: principal("erin") } });
    expect(denied).toEqual({ allowed: 2, consistencyToken: { token: "t1" } });
    await expect(checks.checkForUpdate(request)).resolves.toBe(await checks.checkForUpdate(request));
  });

  it("stops producing when the call is cancelled", async () => {
    const handlers = listHandlers(await context());
    let cancelled = false;
    let written = 0;
    await handlers.streamedListObjects(request(HOSTS), { identity: null, cancelled: () => cancelled }, () => {
      written++;
      if (written === 10) cancelled = true;
    });
    expect(written).toBe(10);
  });
});
