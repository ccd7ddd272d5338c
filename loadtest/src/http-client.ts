// Management API calls with an x-rh-identity header (trusted by a local stack).
import { identityJson } from "../shared/requests.ts";

export class HttpCallError extends Error {
  override readonly name = "HttpCallError";
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    body: string,
  ) {
    super(`${method} ${url} returned ${status}: ${body.slice(0, 500)}`);
  }
}

export interface ManagementClient {
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body: unknown): Promise<T>;
  /** The same client acting as another user of the organisation. */
  as(user: string, isOrgAdmin: boolean): ManagementClient;
}

/** The cause of a failed fetch ("fetch failed" alone says nothing): ECONNREFUSED, ENOTFOUND, ... */
export function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export function identityHeader(org: string, user: string, isOrgAdmin: boolean): string {
  return Buffer.from(identityJson(org, user, isOrgAdmin)).toString("base64");
}

export function managementClient(baseUrl: string, org: string, user = "lt-admin", isOrgAdmin = true): ManagementClient {
  const identity = identityHeader(org, user, isOrgAdmin);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const url = `${baseUrl.replace(/\/$/, "")}${path}`;
    const response = await fetch(url, {
      method,
      headers: { "x-rh-identity": identity, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).catch((error: unknown) => {
      throw new Error(`${method} ${url}: cannot reach the management API (${connectionFailure(error)})`);
    });
    const text = await response.text();
    if (!response.ok) throw new HttpCallError(method, path, response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    get: (path) => call("GET", path),
    post: (path, body) => call("POST", path, body),
    as: (other, admin) => managementClient(baseUrl, org, other, admin),
  };
}

export interface Page<T> {
  data: T[];
  meta?: { count?: number };
  links?: { next?: string | null };
}

/** Every item of an offset-paged v1/v2 list (follows `links.next`). */
export async function listAll<T>(client: ManagementClient, firstPath: string): Promise<T[]> {
  const out: T[] = [];
  let path: string | null | undefined = firstPath;
  while (path) {
    const page: Page<T> = await client.get<Page<T>>(path);
    out.push(...page.data);
    path = page.links?.next;
  }
  return out;
}
