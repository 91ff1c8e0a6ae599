MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp, e.id
LIMIT $limit
