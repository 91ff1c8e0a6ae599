// The metadata of a user's latest episode that records the clock it was said on: only
// those have a clocked_at (their timestamp), so the composite index episode_user_clock
// (user_id, clocked_at) holds them alone and serves the lookup in its order.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.clocked_at IS NOT NULL
RETURN e.metadata AS metadata
ORDER BY e.clocked_at DESC
LIMIT 1
