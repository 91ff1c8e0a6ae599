MATCH (m:Memory {id: $memory_id})-[r:CAUSES|REFERS_TO|RELATED_TO|CONFLICTS_WITH|SUPERSEDES]-(o:Memory)
WHERE m.user_id = $user_id AND o.user_id = $user_id
RETURN startNode(r).id AS source_id, endNode(r).id AS target_id, type(r) AS type,
       r.importance AS importance, r.discovered AS discovered, r.confidence AS confidence,
       r.created_at AS created_at
ORDER BY created_at, source_id, target_id
