// Native vector index, then the user filter: the index is global, so the caller
// over-fetches ($fetch >= 4 x $k). Neo4j's cosine score is (1 + cos) / 2.
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node, score
WHERE node.user_id = $user_id
RETURN node.id AS ref_id, 2 * score - 1 AS score
ORDER BY score DESC, ref_id
LIMIT $k
