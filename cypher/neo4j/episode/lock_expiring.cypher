// The metadata of those of a user's episodes that expire, write-locked (the no-op SET
// takes the lock) so that their expiry is moved on what no other writer is changing.
MATCH (e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id AND e.expires_at IS NOT NULL
SET e.metadata = e.metadata
RETURN e.id AS id, e.metadata AS metadata
