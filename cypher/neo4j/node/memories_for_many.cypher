MATCH (x:Node)<-[:INCLUDES]-(m:Memory)
WHERE x.id IN $node_ids AND x.user_id = $user_id AND m.user_id = $user_id
WITH x, m ORDER BY m.id
RETURN x.id AS node_id, collect(m.id) AS memory_ids
