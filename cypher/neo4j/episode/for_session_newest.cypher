// A session's latest turns, newest first (ties by id, the reverse of for_session's
// order). The timestamp predicate lets the composite index episode_user_session
// (user_id, session_id, timestamp) serve the lookup, as in for_session.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id AND e.timestamp IS NOT NULL
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp DESC, e.id DESC
LIMIT $limit
