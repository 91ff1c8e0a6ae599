MATCH (m:Memory)
WHERE m.id IN $memory_ids AND m.user_id = $user_id
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_accessed = $at
RETURN count(m) AS touched
