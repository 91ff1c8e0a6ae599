// A user's episodes whose id starts with $id_prefix (an integration's items), newest
// first (ties by id), by a prefix seek of the id's uniqueness index: a page of a
// namespace's latest items without decoding the others.
MATCH (e:Episode)
WHERE e.id STARTS WITH $id_prefix AND e.user_id = $user_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp DESC, e.id
SKIP $offset LIMIT $limit
