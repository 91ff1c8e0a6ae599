// Delete a memory, its structural edges and links, and every node no other memory
// still includes. Returns how many memories were deleted (0 or 1).
MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
OPTIONAL MATCH (m)-[:INCLUDES]->(x:Node)
WITH m, collect(x) AS nodes
CALL (m, nodes) {
  UNWIND nodes AS x
  MATCH (x)-[r:MEMORY_TYPE|CORE_RELATION|ATTRIBUTE]->()
  WHERE r.memory_id = m.id
  DELETE r
}
DETACH DELETE m
WITH nodes
CALL (nodes) {
  UNWIND nodes AS x
  WITH x WHERE NOT EXISTS { (x)<-[:INCLUDES]-(:Memory) }
  DETACH DELETE x
}
RETURN 1 AS deleted
