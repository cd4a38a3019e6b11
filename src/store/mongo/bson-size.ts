import { BSON } from 'mongodb';

/**
 * MongoDB refuses a document larger than 16 MiB (BSON's maxBsonObjectSize). Every size here is
 * computed by the driver's own serializer (`BSON.calculateObjectSize`, the bson package the driver
 * writes with), so what the engine counts is what the server would receive.
 */
export const BSON_MAX_BYTES = 16 * 1024 * 1024;

/** The size of one field `name: value` inside a document: the document's size less its 5-byte frame. */
export function fieldSize(name: string, value: unknown): number {
  return BSON.calculateObjectSize({ [name]: value }) - 5;
}

/** The size of a whole document as the driver serializes it. */
export function documentSize(doc: Record<string, unknown>): number {
  return BSON.calculateObjectSize(doc);
}
