// Items with no vector yet, of one user or ($user_id null) of all users.
CALL {
  MATCH (n:Memory) WHERE n.embedding IS NULL AND ($user_id IS NULL OR n.user_id = $user_id)
  RETURN n.user_id AS user_id, 'memory' AS kind, n.id AS ref_id, n.text AS text, n.created_at AS at
  UNION ALL
  MATCH (n:Topic) WHERE n.embedding IS NULL AND ($user_id IS NULL OR n.user_id = $user_id)
  RETURN n.user_id AS user_id, 'topic' AS kind, n.id AS ref_id, n.content AS text, n.created_at AS at
  UNION ALL
  MATCH (n:Object) WHERE n.embedding IS NULL AND ($user_id IS NULL OR n.user_id = $user_id)
  RETURN n.user_id AS user_id, 'object' AS kind, n.id AS ref_id, n.content AS text, n.created_at AS at
  UNION ALL
  MATCH (n:Episode) WHERE n.embedding IS NULL AND ($user_id IS NULL OR n.user_id = $user_id)
  RETURN n.user_id AS user_id, 'episode' AS kind, n.id AS ref_id, n.text AS text, n.timestamp AS at
  UNION ALL
  MATCH (n:Knowledge) WHERE n.embedding IS NULL AND ($user_id IS NULL OR n.user_id = $user_id)
  RETURN n.user_id AS user_id, 'knowledge' AS kind, n.id AS ref_id, n.content AS text, n.created_at AS at
}
RETURN user_id, kind, ref_id, text
LIMIT $limit
