// Fold node $drop_id into $keep_id: memberships, structural edges (both directions) and
// episode mentions move to the kept node; the merge history is kept; the dropped node
// (and so its vector) is deleted. Relationship types are fixed, one block each.
MATCH (keep:Node {id: $keep_id})
WHERE keep.user_id = $user_id
CALL (keep) {
  MATCH (drop:Node {id: $drop_id})
  WHERE drop.user_id = keep.user_id
  RETURN drop
}
CALL (keep, drop) {
  MATCH (m:Memory)-[r:INCLUDES]->(drop)
  MERGE (m)-[k:INCLUDES]->(keep) ON CREATE SET k.user_id = r.user_id
  DELETE r }
CALL (keep, drop) {
  MATCH (drop)-[r:MEMORY_TYPE]->(o) CREATE (keep)-[n:MEMORY_TYPE]->(o) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (o)-[r:MEMORY_TYPE]->(drop) CREATE (o)-[n:MEMORY_TYPE]->(keep) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (drop)-[r:CORE_RELATION]->(o) CREATE (keep)-[n:CORE_RELATION]->(o) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (o)-[r:CORE_RELATION]->(drop) CREATE (o)-[n:CORE_RELATION]->(keep) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (drop)-[r:ATTRIBUTE]->(o) CREATE (keep)-[n:ATTRIBUTE]->(o) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (o)-[r:ATTRIBUTE]->(drop) CREATE (o)-[n:ATTRIBUTE]->(keep) SET n = properties(r) DELETE r }
CALL (keep, drop) {
  MATCH (e:Episode)-[r:MENTIONS]->(drop) MERGE (e)-[:MENTIONS]->(keep) DELETE r }
SET keep.merged_from = coalesce(keep.merged_from, []) + [drop.id] + coalesce(drop.merged_from, [])
DETACH DELETE drop
RETURN keep {.id, .user_id, .kind, .content, .created_at, .merged_from} AS node
