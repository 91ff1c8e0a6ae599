// The user's nodes of one kind whose normalised content is in $norms, oldest first.
MATCH (x:Node)
WHERE x.user_id = $user_id AND x.kind = $kind AND x.norm IN $norms
RETURN x {.id, .user_id, .kind, .content, .created_at, .merged_from} AS node
ORDER BY x.created_at, x.id
