// The HTTP servers' timeout scan: Node looks for requests past their headers or request timeout
// every 30 s unless told otherwise, which cut a client trickling headers 30 s late. The socket
// tests (connection-limits in each app) wait for the cut without a deadline; this pins how often
// the servers scan, without timing anything.
import { describe, expect, it } from "vitest";
import { connectionsCheckingInterval, DEFAULT_HTTP_LIMITS } from "@gatehouse/telemetry";

describe("connectionsCheckingInterval", () => {
  it("is a tenth of the shorter of the headers and request timeouts, within 10 ms and 1 s", () => {
    expect(connectionsCheckingInterval({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 })).toBe(30);
    expect(connectionsCheckingInterval({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 5_000, requestTimeoutMs: 2_000 })).toBe(200);
    expect(connectionsCheckingInterval({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 20, requestTimeoutMs: 20 })).toBe(10);
    // The defaults (20 s headers): once a second, far below Node's own 30 s.
    expect(connectionsCheckingInterval(DEFAULT_HTTP_LIMITS)).toBe(1000);
  });
});
