// Store vectors on the user's items of one kind; ids of other users or kinds are skipped,
// and so is an item queued again since its text was read (item.version, when given, is
// the pending_token it had then: its vector was made from a text no longer its own).
UNWIND $items AS item
CALL (item) {
  MATCH (n:Memory {id: item.ref_id}) WHERE $kind = 'memory' AND n.user_id = $user_id RETURN n
  UNION
  MATCH (n:Topic {id: item.ref_id}) WHERE $kind = 'topic' AND n.user_id = $user_id RETURN n
  UNION
  MATCH (n:Object {id: item.ref_id}) WHERE $kind = 'object' AND n.user_id = $user_id RETURN n
  UNION
  MATCH (n:Episode {id: item.ref_id}) WHERE $kind = 'episode' AND n.user_id = $user_id RETURN n
  UNION
  MATCH (n:Knowledge {id: item.ref_id}) WHERE $kind = 'knowledge' AND n.user_id = $user_id RETURN n
}
WITH n, item
WHERE item.version IS NULL OR coalesce(n.pending_token, '') = item.version
CALL db.create.setNodeVectorProperty(n, 'embedding', item.vector)
REMOVE n:Pending
RETURN count(n) AS stored
