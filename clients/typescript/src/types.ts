import type { paths, webhooks } from './generated/openapi.js';

/**
 * Types picked out of the generated document (generated/openapi.ts, by openapi-typescript):
 * for a path and method, its parameters, JSON body and successful answer.
 */
export type Method = 'get' | 'put' | 'post' | 'delete';
export type Path = keyof paths;
/** The paths that have this method. */
export type PathWith<M extends Method> = { [P in Path]: paths[P][M] extends undefined ? never : P }[Path];
export type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;

type Parameters<O> = O extends { parameters: infer X } ? X : never;
export type PathParams<O> = Parameters<O> extends { path: infer X } ? X : never;
export type QueryParams<O> = Parameters<O> extends { query?: infer X } ? X : never;
export type RequestBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

type Json<R> = R extends { content: { 'application/json': infer C } } ? C : undefined;
/** The answer of a 200, 201, 202 or 204. */
export type Success<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? Json<R[S]> : never }[keyof R]
  : never;

export interface RequestOptions<O> {
  path?: PathParams<O>;
  query?: QueryParams<O>;
  body?: RequestBody<O>;
}

/** The error body of every failed request. */
export interface ErrorBody {
  reasonCode: string;
  reasonText: string;
  url: string;
  method: string;
}

type HookBody<N extends keyof webhooks> = NonNullable<webhooks[N]['post']> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** A data push. */
export type VehicleDataPush = HookBody<'vehicleData'>;
/** Notice `vehicle.data_erased` (opt-in). */
export type VehicleDataErasedNotice = HookBody<'vehicleDataErased'>;
/** Notice `consent.revoked` (opt-in). */
export type ConsentRevokedNotice = HookBody<'consentRevoked'>;
/** Any body the service POSTs to a webhook: a notice has `type`, a data push has not. */
export type WebhookPayload = VehicleDataPush | VehicleDataErasedNotice | ConsentRevokedNotice;
