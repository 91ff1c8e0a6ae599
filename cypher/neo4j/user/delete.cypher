// Everything a user owns, deleted in batches so a large user does not exhaust memory.
// Runs in an auto-commit transaction (CALL ... IN TRANSACTIONS needs one).
CALL () {
  MATCH (n:Memory) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:Node) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:Episode) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:Knowledge) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:KnowledgeVersion) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:Audit) WHERE n.user_id = $user_id RETURN n
  UNION ALL
  MATCH (n:User {id: $user_id}) RETURN n
}
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS
