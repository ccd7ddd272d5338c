import { ResourceReference, StreamedListObjectsResponse } from "@gatehouse/proto";
import { varintLength, writeVarint } from "./varint.js";

// StreamedListObjectsResponse items of one page differ only in the object id and the cursor. The
// constant parts are encoded once per page (by the generated codec); each item is then one buffer
// assembled from them, byte for byte what StreamedListObjectsResponse.encode would produce.
// Field numbers (kessel.inventory.v1beta2): response 1 object, 2 pagination, 3 consistency_token;
// ResourceReference 1 resource_type, 2 resource_id, 3 reporter; ResponsePagination 1 continuation_token.

const TAG_OBJECT = 0x0a;
const TAG_PAGINATION = 0x12;
const TAG_RESOURCE_ID = 0x12;
const TAG_CONTINUATION = 0x0a;

function fieldLength(payload: number): number {
  return 1 + varintLength(payload) + payload;
}

/** Builds the wire bytes of each item of one StreamedListObjects page. */
export function objectItemEncoder(resourceType: string, reporterType: string, consistencyToken: string): (id: string, cursor: string) => Buffer {
  const typeField = Buffer.from(ResourceReference.encode({ resourceType, resourceId: "" }).finish());
  const reporterField = Buffer.from(ResourceReference.encode({ resourceType: "", resourceId: "", reporter: { type: reporterType } }).finish());
  const tokenField = Buffer.from(StreamedListObjectsResponse.encode({ consistencyToken: { token: consistencyToken } }).finish());
  return (id, cursor) => {
    const idBytes = Buffer.byteLength(id, "utf8");
    const cursorBytes = Buffer.byteLength(cursor, "utf8");
    const objectLength = typeField.length + fieldLength(idBytes) + reporterField.length;
    const paginationLength = fieldLength(cursorBytes);
    const out = Buffer.allocUnsafe(fieldLength(objectLength) + fieldLength(paginationLength) + tokenField.length);
    let at = 0;
    out[at++] = TAG_OBJECT;
    at = writeVarint(out, at, objectLength);
    at += typeField.copy(out, at);
    out[at++] = TAG_RESOURCE_ID;
    at = writeVarint(out, at, idBytes);
    at += out.write(id, at, "utf8");
    at += reporterField.copy(out, at);
    out[at++] = TAG_PAGINATION;
    at = writeVarint(out, at, paginationLength);
    out[at++] = TAG_CONTINUATION;
    at = writeVarint(out, at, cursorBytes);
    at += out.write(cursor, at, "latin1");
    tokenField.copy(out, at);
    return out;
  };
}
