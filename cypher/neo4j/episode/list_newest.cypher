// A user's episodes, newest first (ties by id): a page of the latest without the rest.
MATCH (e:Episode)
WHERE e.user_id = $user_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp DESC, e.id
SKIP $offset LIMIT $limit
