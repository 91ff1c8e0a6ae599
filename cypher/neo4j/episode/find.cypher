MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.speaker = $speaker AND coalesce(e.access_count, 0) >= $min_access
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp, e.id
LIMIT $limit
