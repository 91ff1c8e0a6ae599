// A new expiry for each row's episode, where it still has one (an item put again
// without a TTL since it was read keeps none); nothing searched or embedded changes.
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.user_id = $user_id AND e.expires_at IS NOT NULL
SET e.expires_at = row.expires_at
RETURN count(e) AS moved
