import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type OneOrMore,
  type WriteError,
} from 'mongodb';
import { DuplicateKeyError, StoreUnavailableError } from '../contract/errors.ts';

/** E11000 (11001 and 12582 are older servers' and mongos' spellings of the same refusal). */
const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582]);

/**
 * Server codes that mean "not now" rather than "never": no primary, stepping down, shutting
 * down, network trouble on the server side, write concern not met in time. The same set the
 * driver treats as retryable, plus write-concern timeouts (64), maxTimeMS expired (50), and what
 * mongos answers while a shard has no primary (133 FailedToSatisfyReadPreference) or does not
 * answer in time (202 NetworkInterfaceExceededTimeLimit).
 */
const TRANSIENT_CODES = new Set([6, 7, 50, 64, 89, 91, 133, 134, 189, 202, 262, 9001, 10058, 10107, 11600, 11602, 13435, 13436]);
const TRANSIENT_LABELS = ['RetryableWriteError', 'ResetPool', 'TransientTransactionError', 'RetryableError', 'SystemOverloadedError'];

export function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && DUPLICATE_KEY_CODES.has(Number(err.code));
}

/** True when the database could not be reached or could not durably answer in time. */
export function isTransient(err: unknown): boolean {
  if (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoClientClosedError ||
    // The server was removed from the topology (a reconfiguration, a failover) while the
    // operation was being sent to it: the next one goes to the new primary.
    err instanceof MongoServerClosedError ||
    err instanceof MongoOperationTimeoutError ||
    err instanceof MongoWriteConcernError
  ) {
    return true;
  }
  // A bulk write whose documents were all accepted can still miss its write concern (majority).
  if (err instanceof MongoBulkWriteError && err.result?.getWriteConcernError()) return true;
  // insertMany and bulkWrite run through the driver's bulk executor, which wraps an outage that
  // stopped a batch (network error, no primary to select) in a MongoBulkWriteError without
  // write errors; the original error is its errorResponse.
  if (err instanceof MongoBulkWriteError && err.errorResponse instanceof Error && err.errorResponse !== err) {
    return isTransient(err.errorResponse);
  }
  // An unordered batch that the server cut short (a step-down between two of its operations)
  // reports the operations it could not run as write errors with an outage's code, possibly after
  // an E11000: the error's own code is the first write error's, so look at every one.
  if (err instanceof MongoBulkWriteError && writeErrorsOf(err).some((w) => TRANSIENT_CODES.has(Number(w.code)))) return true;
  if (!(err instanceof MongoError)) return false;
  return TRANSIENT_LABELS.some((label) => err.hasErrorLabel(label)) || TRANSIENT_CODES.has(Number(err.code));
}

/**
 * The contract's name for the unique index an E11000 hit, from the error's keyPattern
 * (e.g. `{ keyHash: 1 }` → names.keyHash). Falls back to the server's message.
 */
export function duplicateKeyError(err: MongoServerError, names: Record<string, string>): DuplicateKeyError {
  const pattern = (err.keyPattern ?? err.errorResponse?.keyPattern) as Record<string, unknown> | undefined;
  const fields = pattern ? Object.keys(pattern).join(',') : '';
  return new DuplicateKeyError(names[fields] ?? (fields || err.message));
}

/** Maps driver errors to the contract's: outages become {@link StoreUnavailableError}. */
export function toStoreError(err: unknown): unknown {
  if (err instanceof DuplicateKeyError || err instanceof StoreUnavailableError) return err;
  return isTransient(err) ? new StoreUnavailableError(err) : err;
}

/** A bulk write error's write errors as a list (the driver's type allows one or many). */
function writeErrorsOf(err: MongoBulkWriteError): readonly WriteError[] {
  const { writeErrors } = err;
  return isList(writeErrors) ? writeErrors : [writeErrors];
}

const isList = (w: OneOrMore<WriteError>): w is readonly WriteError[] => Array.isArray(w);

/**
 * The indexes of a bulk write's operations that a unique index refused. Any other failure
 * (another write error, a missed write concern, a network error) is rethrown: only "already
 * there" is an expected outcome.
 */
export function duplicateIndexes(err: unknown): Set<number> {
  if (!(err instanceof MongoBulkWriteError) || err.result?.getWriteConcernError()) throw err;
  const writeErrors = writeErrorsOf(err);
  if (writeErrors.length === 0 || writeErrors.some((w) => !DUPLICATE_KEY_CODES.has(Number(w.code)))) throw err;
  return new Set(writeErrors.map((w) => w.index));
}

/**
 * Runs an upsert whose filter is a unique index's fields. Two concurrent upserts of a new key
 * can both try to insert; the loser gets E11000 although its update is valid, and simply
 * running it again turns it into an update of the winner's document (MongoDB manual, upsert
 * with unique index; the server retries some of these cases itself since 4.2).
 */
export async function upsertRetrying<T>(write: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= attempts) throw err;
    }
  }
}
