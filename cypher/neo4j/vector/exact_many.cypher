// Exact cosine over one user's vectors of each kind in $kinds, in one round trip: the
// kinds whose native-index over-fetch (ann_many) found fewer than $k of the user's items,
// as for a user who owns a small share of them. Each branch is that kind's exact scan
// (exact_<kind>.cypher); a kind not asked for yields nothing.
CALL () {
  MATCH (n:Memory)
  WHERE 'memory' IN $kinds AND n.user_id = $user_id AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
  RETURN 'memory' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  MATCH (n:Topic)
  WHERE 'topic' IN $kinds AND n.user_id = $user_id AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
  RETURN 'topic' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  MATCH (n:Object)
  WHERE 'object' IN $kinds AND n.user_id = $user_id AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
  RETURN 'object' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
  UNION ALL
  MATCH (n:Episode)
  WHERE 'episode' IN $kinds AND n.user_id = $user_id AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
  RETURN 'episode' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  ORDER BY score DESC, ref_id
  LIMIT $k
}
RETURN kind, ref_id, score
