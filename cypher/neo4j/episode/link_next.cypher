// NEXT edges along each session in time order; $pairs were computed by the caller
// (memory_platform/store/sessions.py). A turn has one turn after it: a late turn put
// between two stored ones takes the first one's edge to the second.
// The second end is found in a subquery per row, so the plan has no cartesian product.
// The first end is queued to be embedded again (:Pending): its vector's text takes the
// turn after it (episode_embedding_text); a stored turn's old vector serves until then.
// One kept out of search (searchable false) has no vector to renew.
UNWIND $pairs AS p
MATCH (a:Episode {id: p.from_id})
WHERE a.user_id = $user_id
CALL (a, p) {
  MATCH (b:Episode {id: p.to_id})
  WHERE b.user_id = a.user_id
  RETURN b
}
CALL (a, b) {
  MATCH (a)-[old:NEXT]->(other:Episode)
  WHERE other <> b
  DELETE old
}
MERGE (a)-[:NEXT {user_id: $user_id}]->(b)
FOREACH (_ IN CASE WHEN coalesce(a.searchable, true) THEN [1] ELSE [] END |
  SET a:Pending, a.pending_token = randomUUID()
)
RETURN count(*) AS linked
