// Structural edges of memories (each row names its memory); the relationship type comes
// from the validated edge type through fixed FOREACH branches, with the seed's names.
// Each edge's second end is found in a subquery per row: no cartesian product in the plan.
UNWIND $edges AS e
MATCH (a:Node {id: e.src_id})
WHERE a.user_id = $user_id
CALL (a, e) {
  MATCH (b:Node {id: e.dst_id})
  WHERE b.user_id = a.user_id
  RETURN b
}
FOREACH (_ IN CASE WHEN e.type = 'MEMORY_TYPE' THEN [1] ELSE [] END |
  CREATE (a)-[:MEMORY_TYPE {memory_id: e.memory_id, user_id: $user_id, type: e.label, seq: e.seq}]->(b))
FOREACH (_ IN CASE WHEN e.type = 'CORE_RELATION' THEN [1] ELSE [] END |
  CREATE (a)-[:CORE_RELATION {memory_id: e.memory_id, user_id: $user_id, relation: e.label, seq: e.seq}]->(b))
FOREACH (_ IN CASE WHEN e.type = 'ATTRIBUTE' THEN [1] ELSE [] END |
  CREATE (a)-[:ATTRIBUTE {memory_id: e.memory_id, user_id: $user_id, key: e.label, seq: e.seq}]->(b))
RETURN count(*) AS written
