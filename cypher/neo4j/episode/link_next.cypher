// NEXT edges along each session in time order; $pairs were computed by the caller.
UNWIND $pairs AS p
MATCH (a:Episode {id: p.from_id})
WHERE a.user_id = $user_id
MATCH (b:Episode {id: p.to_id})
WHERE b.user_id = $user_id
MERGE (a)-[:NEXT {user_id: $user_id}]->(b)
RETURN count(*) AS linked
