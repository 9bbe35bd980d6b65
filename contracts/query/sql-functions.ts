/**
 * @module The names of the SQL functions compiled queries call. The query compiler writes these
 * names; whoever runs a compiled query registers functions of these names on its connection
 * (the gateway's int-functions.ts and read-functions.ts).
 */

/** `charter_int(op, a, b)`: 64-bit integer arithmetic that fails on overflow or division by zero. */
export const INT_FUNCTION = "charter_int";
/** `charter_neg(a)`: checked negation. */
export const NEG_FUNCTION = "charter_neg";
/** `charter_distance(metric, a, b)`: the distance `nearest` orders by. */
export const DISTANCE_FUNCTION = "charter_distance";
/** `charter_fts(text, columns)`: a search text as an FTS5 query that cannot be malformed. */
export const FTS_FUNCTION = "charter_fts";
/** `charter_vector(json)`: a vector held in history JSON as its stored BLOB form (`asof`). */
export const VECTOR_FUNCTION = "charter_vector";
/** `charter_nearest(subject)`: the distance the in-memory ranking gave a candidate. */
export const NEAREST_FUNCTION = "charter_nearest";
