MATCH (x:Node)
WHERE x.id IN $node_ids AND x.user_id = $user_id
RETURN x {.id, .user_id, .kind, .content, .created_at, .merged_from} AS node
