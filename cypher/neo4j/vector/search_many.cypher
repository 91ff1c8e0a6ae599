CYPHER 25
// The native vector index of each asked kind, filtered to the user inside the index
// (the SEARCH clause, Neo4j 2026.01 and later, on indexes created WITH [n.user_id] by
// schema_vectors_filtered.cypher): each branch returns up to that kind's $k_<kind> of the
// user's own nodes, however small a share of the index they are; a kind not asked for has
// a limit of 0. Used instead of ann_many.cypher when the server supports it (see
// store/neo4j.py). The index's cosine score is (1 + cos) / 2.
CALL () {
  MATCH (n:Memory)
    SEARCH n IN (VECTOR INDEX memory_embedding FOR $vector WHERE n.user_id = $user_id LIMIT $k_memory)
    SCORE AS score
  RETURN 'memory' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  UNION ALL
  MATCH (n:Topic)
    SEARCH n IN (VECTOR INDEX topic_embedding FOR $vector WHERE n.user_id = $user_id LIMIT $k_topic)
    SCORE AS score
  RETURN 'topic' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  UNION ALL
  MATCH (n:Object)
    SEARCH n IN (VECTOR INDEX object_embedding FOR $vector WHERE n.user_id = $user_id LIMIT $k_object)
    SCORE AS score
  RETURN 'object' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  UNION ALL
  MATCH (n:Episode)
    SEARCH n IN (VECTOR INDEX episode_embedding FOR $vector WHERE n.user_id = $user_id LIMIT $k_episode)
    SCORE AS score
  RETURN 'episode' AS kind, n.id AS ref_id, 2 * score - 1 AS score
  UNION ALL
  MATCH (n:Knowledge)
    SEARCH n IN (VECTOR INDEX knowledge_embedding FOR $vector WHERE n.user_id = $user_id LIMIT $k_knowledge)
    SCORE AS score
  RETURN 'knowledge' AS kind, n.id AS ref_id, 2 * score - 1 AS score
}
RETURN kind, ref_id, score
ORDER BY kind, score DESC, ref_id
