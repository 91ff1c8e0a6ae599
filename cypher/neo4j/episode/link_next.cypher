// NEXT edges along each session in time order; $pairs were computed by the caller.
// The second end is found in a subquery per row, so the plan has no cartesian product.
UNWIND $pairs AS p
MATCH (a:Episode {id: p.from_id})
WHERE a.user_id = $user_id
CALL (a, p) {
  MATCH (b:Episode {id: p.to_id})
  WHERE b.user_id = a.user_id
  RETURN b
}
MERGE (a)-[:NEXT {user_id: $user_id}]->(b)
RETURN count(*) AS linked
