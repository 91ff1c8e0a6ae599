// A user's episodes whose id starts with $id_prefix (an integration's items, such as the
// LangGraph store's), found by a prefix seek of the id's uniqueness index rather than by
// reading every turn of the user; ordered as episode/list orders them.
MATCH (e:Episode)
WHERE e.id STARTS WITH $id_prefix AND e.user_id = $user_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY coalesce(e.session_id, ''), e.timestamp, e.id
SKIP $offset LIMIT $limit
