MATCH (m:Memory)
WHERE m.id IN $memory_ids AND m.user_id = $user_id
RETURN m {.*, embedding: null, search_tokens: null} AS memory
