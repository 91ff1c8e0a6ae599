// Only the keys present in $changes are set; $clear_invalid removes invalid_at. With
// $only_if_current nothing changes once invalid_at is set: the write lock is taken first
// (_LOCK_, the manual's way against lost updates under read-committed), so invalid_at is
// read as the last transaction to change it left it, and `applied` says whether it did.
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
SET m._LOCK_ = true
WITH m, (NOT $only_if_current) OR (m.invalid_at IS NULL) AS applied
FOREACH (_ IN CASE WHEN applied THEN [1] ELSE [] END | SET m += $changes)
FOREACH (_ IN CASE WHEN applied AND $clear_invalid THEN [1] ELSE [] END | REMOVE m.invalid_at)
REMOVE m._LOCK_
RETURN m {.*, embedding: null, search_tokens: null} AS memory, applied
