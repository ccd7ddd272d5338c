import { status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from "@grpc/grpc-js";
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  type GetLivezResponse,
  type GetReadyzResponse,
  type HealthCheckRequest,
  type HealthCheckResponse,
  type HealthListResponse,
} from "@gatehouse/proto";

export const INVENTORY_SERVICE_NAME = "kessel.inventory.v1beta2.KesselInventoryService";
const WATCH_INTERVAL_MS = 1000;

/** Readiness is computed by the server (snapshot loaded, feed healthy, not shutting down). */
export interface Readiness {
  ready(): boolean;
}

export function kesselHealthHandlers(readiness: Readiness) {
  return {
    async getLivez(): Promise<GetLivezResponse> {
      return { status: "OK", code: 200 };
    },
    async getReadyz(): Promise<GetReadyzResponse> {
      return readiness.ready() ? { status: "OK", code: 200 } : { status: "NOT READY", code: 503 };
    },
  };
}

/** grpc.health.v1: "" (the whole server) and the inventory service are known. */
export function standardHealthService(readiness: Readiness): {
  implementation: UntypedServiceImplementation;
  /** Ends open Watch streams, so a graceful shutdown does not wait for them. */
  endWatches(): void;
} {
  const watches = new Set<() => void>();
  const known = new Set(["", INVENTORY_SERVICE_NAME]);
  const statusOf = (): ServingStatus => (readiness.ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  const implementation: UntypedServiceImplementation = {
    check(call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: sendUnaryData<HealthCheckResponse>) {
      if (!known.has(call.request.service)) {
        callback({ code: status.NOT_FOUND, details: `unknown service ${call.request.service}` });
        return;
      }
      callback(null, { status: statusOf() });
    },
    list(_call: ServerUnaryCall<unknown, HealthListResponse>, callback: sendUnaryData<HealthListResponse>) {
      const current = { status: statusOf() };
      callback(null, { statuses: { "": current, [INVENTORY_SERVICE_NAME]: current } });
    },
    // Sends the current status, then every change, until the client goes away.
    watch(call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) {
      let last: ServingStatus | null = null;
      const send = () => {
        const next = known.has(call.request.service) ? statusOf() : ServingStatus.SERVICE_UNKNOWN;
        if (next !== last) {
          last = next;
          call.write({ status: next });
        }
      };
      send();
      const timer = setInterval(send, WATCH_INTERVAL_MS);
      const stop = () => {
        clearInterval(timer);
        watches.delete(stop);
        call.end();
      };
      watches.add(stop);
      call.on("cancelled", stop);
      call.on("close", () => {
        clearInterval(timer);
        watches.delete(stop);
      });
    },
  };
  return {
    implementation,
    endWatches() {
      for (const stop of [...watches]) stop();
    },
  };
}
