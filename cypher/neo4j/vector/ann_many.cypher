// The native vector index of each asked kind ($kinds) in one round trip: each index is
// asked for $fetch nodes (it is global, so the caller over-fetches), filtered to the user,
// best $k kept per kind. A kind that yields fewer than $k of the user's nodes is completed
// by the caller with an exact per-user scan. Neo4j's cosine score is (1 + cos) / 2.
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding', CASE WHEN 'memory' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'memory' IN $kinds AND node.user_id = $user_id
  RETURN 'memory' AS kind, node.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  CALL db.index.vector.queryNodes('topic_embedding', CASE WHEN 'topic' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'topic' IN $kinds AND node.user_id = $user_id
  RETURN 'topic' AS kind, node.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  CALL db.index.vector.queryNodes('object_embedding', CASE WHEN 'object' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'object' IN $kinds AND node.user_id = $user_id
  RETURN 'object' AS kind, node.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  CALL db.index.vector.queryNodes('episode_embedding', CASE WHEN 'episode' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'episode' IN $kinds AND node.user_id = $user_id
  RETURN 'episode' AS kind, node.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
}
RETURN kind, ref_id, score
