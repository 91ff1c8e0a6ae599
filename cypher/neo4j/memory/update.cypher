// Only the keys present in $changes are set; $clear_invalid removes invalid_at.
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
SET m += $changes
FOREACH (_ IN CASE WHEN $clear_invalid THEN [1] ELSE [] END | REMOVE m.invalid_at)
RETURN m {.*, embedding: null, search_tokens: null} AS memory
