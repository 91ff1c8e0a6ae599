MATCH (e:Episode)
WHERE e.user_id = $user_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY coalesce(e.session_id, ''), e.timestamp, e.id
SKIP $offset LIMIT $limit
