// A session's turns in time order. The timestamp predicate holds for every episode; it
// is there so that the composite index episode_user_session (user_id, session_id,
// timestamp), which wants a predicate on each of its properties, serves the lookup.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id AND e.timestamp IS NOT NULL
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp, e.id
LIMIT $limit
