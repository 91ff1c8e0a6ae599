// A new expiry for each row's episode: the expires_at property and the metadata text
// that holds it (nothing searched or embedded changes). Only where the metadata is still
// what was read (row.read): an item put again meanwhile keeps what its put gave it.
UNWIND $rows AS row
MATCH (e:Episode {id: row.id})
WHERE e.user_id = $user_id AND e.metadata = row.read
SET e.expires_at = row.expires_at, e.metadata = row.metadata
RETURN count(e) AS moved
