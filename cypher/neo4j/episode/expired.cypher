// The ids of a user's episodes whose expiry has come ($now), by the index of expiring
// episodes (episode_user_expiry holds only those with an expires_at).
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.expires_at <= $now
RETURN e.id AS id
ORDER BY id
LIMIT $limit
