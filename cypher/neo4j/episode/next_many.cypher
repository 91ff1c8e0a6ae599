MATCH (e:Episode)-[:NEXT]->(n:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id AND n.user_id = $user_id
RETURN e.id AS id, n.id AS next_id
