import { context, propagation } from "@opentelemetry/api";
import { type CallOptions, ChannelCredentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { Allowed, type CheckForUpdateRequest, type CheckRequest, KesselInventoryServiceClient, type StreamedListObjectsRequest, type StreamedListObjectsResponse } from "@gatehouse/proto";
import { AuthzClientError, type AuthzClientErrorCode } from "./errors.js";
import type { TokenProvider } from "./oauth.js";

export interface CheckOutcome {
  allowed: boolean;
  consistencyToken?: string;
}

/** The three RPCs the pattern helpers need, with deadlines, auth and error mapping applied. */
export interface CheckTransport {
  check(request: CheckRequest): Promise<CheckOutcome>;
  checkForUpdate(request: CheckForUpdateRequest): Promise<CheckOutcome>;
  /** One page of StreamedListObjects, item by item as the server sends them. */
  listObjects(request: StreamedListObjectsRequest): AsyncIterable<StreamedListObjectsResponse>;
  close(): void;
}

export interface GrpcTransportOptions {
  target: string;
  insecure: boolean;
  tokens?: TokenProvider;
  timeoutMs: number;
  /** Attempts per call on UNAVAILABLE, first one included (default 4; 1 turns retries off). */
  maxAttempts?: number;
}

/**
 * gRPC service config: grpc-js retries the read RPCs on UNAVAILABLE (the server was not reached or
 * refused the call before doing anything) with exponential backoff and jitter, within the call's
 * deadline. A stream is retried only until its first message arrives.
 */
export function retryServiceConfig(maxAttempts: number): string {
  const service = "kessel.inventory.v1beta2.KesselInventoryService";
  return JSON.stringify({
    methodConfig: [
      {
        name: ["Check", "CheckForUpdate", "CheckBulk", "StreamedListObjects"].map((method) => ({ service, method })),
        retryPolicy: { maxAttempts, initialBackoff: "0.05s", maxBackoff: "1s", backoffMultiplier: 2, retryableStatusCodes: ["UNAVAILABLE"] },
      },
    ],
  });
}

const CODE_FOR_STATUS: Partial<Record<status, AuthzClientErrorCode>> = {
  [status.INVALID_ARGUMENT]: "invalid-argument",
  [status.UNAUTHENTICATED]: "unauthenticated",
  [status.PERMISSION_DENIED]: "permission-denied",
  [status.DEADLINE_EXCEEDED]: "deadline-exceeded",
  [status.UNAVAILABLE]: "unavailable",
  [status.NOT_FOUND]: "invalid-argument",
  [status.FAILED_PRECONDITION]: "invalid-argument",
};

function toClientError(err: ServiceError, rpc: string): AuthzClientError {
  const code = CODE_FOR_STATUS[err.code as status] ?? "internal";
  return new AuthzClientError(code, `${rpc} failed: ${err.details || err.message}`, { cause: err });
}

function outcome(rpc: string, response: { allowed: Allowed; consistencyToken?: { token: string } | undefined }): CheckOutcome {
  if (response.allowed !== Allowed.ALLOWED_TRUE && response.allowed !== Allowed.ALLOWED_FALSE) {
    throw new AuthzClientError("invalid-response", `${rpc} answered allowed=${String(response.allowed)}.`);
  }
  return { allowed: response.allowed === Allowed.ALLOWED_TRUE, ...(response.consistencyToken ? { consistencyToken: response.consistencyToken.token } : {}) };
}

/**
 * grpc-js transport. Every call carries a deadline. Retries happen only where repeating cannot
 * change anything: UNAVAILABLE by the service config above, and one retry after UNAUTHENTICATED
 * with a fresh token.
 */
export function createGrpcTransport(options: GrpcTransportOptions): CheckTransport {
  const credentials = options.insecure ? ChannelCredentials.createInsecure() : ChannelCredentials.createSsl();
  const maxAttempts = options.maxAttempts ?? 4;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new AuthzClientError("invalid-config", "maxAttempts must be a positive integer.");
  const client = new KesselInventoryServiceClient(options.target, credentials, {
    "grpc.service_config": retryServiceConfig(Math.max(2, maxAttempts)),
    "grpc.enable_retries": maxAttempts > 1 ? 1 : 0,
  });

  async function callOptions(): Promise<{ metadata: Metadata; call: Partial<CallOptions> }> {
    const metadata = new Metadata();
    // The application's trace continues in Gatehouse (and its sampled flag decides there too).
    propagation.inject(context.active(), metadata, { set: (carrier, key, value) => carrier.set(key, value) });
    // Sent as metadata rather than call credentials so it also works on plaintext local channels.
    if (options.tokens) metadata.set("authorization", `Bearer ${await options.tokens.getToken()}`);
    return { metadata, call: { deadline: Date.now() + options.timeoutMs } };
  }

  async function withRetry<T>(rpc: string, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      const serviceError = err as ServiceError;
      if (typeof serviceError?.code !== "number") throw err;
      if (serviceError.code !== status.UNAUTHENTICATED || !options.tokens) throw toClientError(serviceError, rpc);
      options.tokens.invalidate();
      try {
        return await attempt();
      } catch (retryErr) {
        const again = retryErr as ServiceError;
        throw typeof again?.code === "number" ? toClientError(again, rpc) : retryErr;
      }
    }
  }

  function unary<Req, Res>(rpc: string, method: (req: Req, md: Metadata, opts: Partial<CallOptions>, cb: (e: ServiceError | null, r: Res) => void) => unknown, request: Req): Promise<Res> {
    return withRetry(rpc, async () => {
      const { metadata, call } = await callOptions();
      return new Promise<Res>((resolve, reject) => {
        method.call(client, request, metadata, call, (error: ServiceError | null, response: Res) => (error ? reject(error) : resolve(response)));
      });
    });
  }

  return {
    async check(request) {
      return outcome("Check", await unary("Check", client.check, request));
    },
    async checkForUpdate(request) {
      return outcome("CheckForUpdate", await unary("CheckForUpdate", client.checkForUpdate, request));
    },
    async *listObjects(request) {
      // The whole call (including the first item) is what may be repeated after UNAUTHENTICATED:
      // once an item has been handed out, a repeat would duplicate it.
      const started = await withRetry("StreamedListObjects", async () => {
        const { metadata, call } = await callOptions();
        const iterator = client.streamedListObjects(request, metadata, call)[Symbol.asyncIterator]();
        return { iterator, head: await iterator.next() };
      });
      let next = started.head;
      try {
        while (!next.done) {
          yield next.value as StreamedListObjectsResponse;
          next = await started.iterator.next();
        }
      } catch (err) {
        const serviceError = err as ServiceError;
        throw typeof serviceError?.code === "number" ? toClientError(serviceError, "StreamedListObjects") : err;
      } finally {
        // A caller that stops early cancels the stream instead of leaving it running.
        if (!next.done) await started.iterator.return?.();
      }
    },
    close() {
      client.close();
    },
  };
}
