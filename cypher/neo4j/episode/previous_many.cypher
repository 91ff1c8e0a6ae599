// The turns just before the given episodes in their sessions.
MATCH (p:Episode)-[:NEXT]->(e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id AND p.user_id = $user_id
RETURN p.id AS id
