// The random seeds the differential suites use, shared with the history-independence test so that
// it covers every one of them.

/** Stage and hand schemas (`differential.spicedb.test.ts`); the hand case draws from 1000 + seed. */
export const FIXED_SCHEMA_SEEDS = [1, 2, 3, 4];

/**
 * Random schemas (`differential-random-schemas.spicedb.test.ts`): the first twelve, and seeds whose
 * cyclic or chained data once disagreed (lookups past SpiceDB's depth; 203: a batch of subject sets
 * failing as a whole; 1153: aliases dispatched for a subject of the resource's type; 1262: concrete
 * ids beside a wildcard in LookupSubjects).
 */
export const RANDOM_SCHEMA_SEEDS = [...Array.from({ length: 12 }, (_, i) => i + 1), 40, 43, 53, 203, 1153, 1262];
