MATCH (e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
