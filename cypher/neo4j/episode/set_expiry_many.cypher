// A new expiry for each row's episode: the expires_at property and the metadata text
// that holds it (nothing searched or embedded changes).
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.user_id = $user_id
SET e.expires_at = row.expires_at, e.metadata = row.metadata
RETURN count(e) AS moved
