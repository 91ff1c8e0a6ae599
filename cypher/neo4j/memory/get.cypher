MATCH (m:Memory {id: $memory_id})
WHERE m.user_id = $user_id
OPTIONAL MATCH (m)-[:INCLUDES]->(x:Node)
WITH m, x ORDER BY x.created_at, x.id
WITH m, collect(x {.id, .user_id, .kind, .content, .created_at, .merged_from}) AS nodes
CALL (m) {
  OPTIONAL MATCH (m)-[:INCLUDES]->(a:Node)-[r:MEMORY_TYPE|CORE_RELATION|ATTRIBUTE]->(b:Node)
  WHERE r.memory_id = m.id
  WITH r, a, b ORDER BY r.seq
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    {src_id: a.id, dst_id: b.id, type: type(r), label: coalesce(r.type, r.relation, r.key)} END) AS edges
}
RETURN m {.*, embedding: null, search_tokens: null} AS memory, nodes, edges
