MATCH (m:Memory)
WHERE m.user_id = $user_id AND ($status IS NULL OR m.status = $status)
RETURN m {.*, embedding: null, search_tokens: null} AS memory
ORDER BY m.created_at, m.id
SKIP $offset LIMIT $limit
