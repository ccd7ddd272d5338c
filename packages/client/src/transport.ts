import { type CallOptions, ChannelCredentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import {
  Allowed,
  type CheckForUpdateRequest,
  type CheckRequest,
  KesselInventoryServiceClient,
  type StreamedListObjectsRequest,
  type StreamedListObjectsResponse,
} from "@gatehouse/proto";
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
  /** One page of StreamedListObjects, fully read. */
  listObjectsPage(request: StreamedListObjectsRequest): Promise<StreamedListObjectsResponse[]>;
  close(): void;
}

export interface GrpcTransportOptions {
  target: string;
  insecure: boolean;
  tokens?: TokenProvider;
  timeoutMs: number;
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
 * change anything: checks and list pages are side-effect free, so one retry follows UNAVAILABLE
 * (the server was not reached) and one follows UNAUTHENTICATED after fetching a fresh token.
 */
export function createGrpcTransport(options: GrpcTransportOptions): CheckTransport {
  const credentials = options.insecure ? ChannelCredentials.createInsecure() : ChannelCredentials.createSsl();
  const client = new KesselInventoryServiceClient(options.target, credentials);

  async function callOptions(): Promise<{ metadata: Metadata; call: Partial<CallOptions> }> {
    const metadata = new Metadata();
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
      if (serviceError.code === status.UNAUTHENTICATED && options.tokens) {
        options.tokens.invalidate();
      } else if (serviceError.code !== status.UNAVAILABLE) {
        throw toClientError(serviceError, rpc);
      }
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
    listObjectsPage(request) {
      // A page is retried only as a whole, so a retry can never duplicate or skip items.
      return withRetry("StreamedListObjects", async () => {
        const { metadata, call } = await callOptions();
        const items: StreamedListObjectsResponse[] = [];
        for await (const item of client.streamedListObjects(request, metadata, call)) items.push(item as StreamedListObjectsResponse);
        return items;
      });
    },
    close() {
      client.close();
    },
  };
}
