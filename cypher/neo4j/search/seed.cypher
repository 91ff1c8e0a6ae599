// Everything a search starts from, in one round trip (store/neo4j.py, seed_search):
// - for each kind in $kinds, the user's $k nearest nodes ($node_k of topics and objects,
//   each a door to up to $fanout memories): the native vector index is asked for $fetch
//   ($node_fetch) (it is global, so it over-fetches) and kept to the user; a kind that
//   yields fewer than that (a user who owns a small share of the index) is answered by an
//   exact scan of just the user's nodes instead (scanned: true);
// - for each matching topic and object node, its first $fanout memories by id;
// - the fulltext index's best $k items of the kinds in $lexical_kinds for $words (null
//   when the text has no words), the user's hash token required, as lexical/search;
// - the stored candidates of all three, as search/load_candidates returns them: the
//   cosine is computed here only for the lexical-only ones (the vectors scored the rest).
// Neo4j's cosine scores are (1 + cos) / 2, mapped back to the cosine.
CALL () {
  CALL db.index.vector.queryNodes('memory_embedding', CASE WHEN 'memory' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'memory' IN $kinds AND node.user_id = $user_id
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  WITH collect({ref_id: node.id, score: 2 * score - 1}) AS ann
  WITH ann, 'memory' IN $kinds AND size(ann) < $k AS short
  CALL (short) {
    WITH short
    WHERE short
    MATCH (n:Memory)
    WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
    ORDER BY score DESC, n.id
    LIMIT $k
    RETURN collect({ref_id: n.id, score: score}) AS exact
  }
  RETURN 'memory' AS kind, CASE WHEN short THEN exact ELSE ann END AS hits, short AS scanned
  UNION ALL
  CALL db.index.vector.queryNodes('topic_embedding', CASE WHEN 'topic' IN $kinds THEN $node_fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'topic' IN $kinds AND node.user_id = $user_id
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $node_k
  WITH collect({ref_id: node.id, score: 2 * score - 1}) AS ann
  WITH ann, 'topic' IN $kinds AND size(ann) < $node_k AS short
  CALL (short) {
    WITH short
    WHERE short
    MATCH (n:Topic)
    WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
    ORDER BY score DESC, n.id
    LIMIT $node_k
    RETURN collect({ref_id: n.id, score: score}) AS exact
  }
  RETURN 'topic' AS kind, CASE WHEN short THEN exact ELSE ann END AS hits, short AS scanned
  UNION ALL
  CALL db.index.vector.queryNodes('object_embedding', CASE WHEN 'object' IN $kinds THEN $node_fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'object' IN $kinds AND node.user_id = $user_id
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $node_k
  WITH collect({ref_id: node.id, score: 2 * score - 1}) AS ann
  WITH ann, 'object' IN $kinds AND size(ann) < $node_k AS short
  CALL (short) {
    WITH short
    WHERE short
    MATCH (n:Object)
    WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
    ORDER BY score DESC, n.id
    LIMIT $node_k
    RETURN collect({ref_id: n.id, score: score}) AS exact
  }
  RETURN 'object' AS kind, CASE WHEN short THEN exact ELSE ann END AS hits, short AS scanned
  UNION ALL
  CALL db.index.vector.queryNodes('episode_embedding', CASE WHEN 'episode' IN $kinds THEN $fetch ELSE 1 END, $vector)
  YIELD node, score
  WHERE 'episode' IN $kinds AND node.user_id = $user_id
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  WITH collect({ref_id: node.id, score: 2 * score - 1}) AS ann
  WITH ann, 'episode' IN $kinds AND size(ann) < $k AS short
  CALL (short) {
    WITH short
    WHERE short
    MATCH (n:Episode)
    WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
    WITH n, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
    ORDER BY score DESC, n.id
    LIMIT $k
    RETURN collect({ref_id: n.id, score: score}) AS exact
  }
  RETURN 'episode' AS kind, CASE WHEN short THEN exact ELSE ann END AS hits, short AS scanned
}
WITH collect({kind: kind, hits: hits, scanned: scanned}) AS by_vector
CALL (by_vector) {
  UNWIND by_vector AS seed
  UNWIND seed.hits AS hit
  WITH seed.kind AS kind, hit.ref_id AS node_id
  WHERE kind IN ['topic', 'object'] AND 'memory' IN $kinds
  MATCH (x:Node {id: node_id})<-[:INCLUDES]-(m:Memory)
  WHERE x.user_id = $user_id AND m.user_id = $user_id
  WITH x, m
  ORDER BY m.id
  WITH x, collect(m.id) AS memory_ids
  RETURN collect({node_id: x.id, memory_ids: memory_ids[..$fanout]}) AS nodes
}
CALL () {
  UNWIND CASE WHEN $words IS NULL THEN [] ELSE [$words] END AS words
  CALL db.index.fulltext.queryNodes('lexical_text', words, {limit: $fetch})
  YIELD node, score
  WHERE node.user_id = $user_id AND node.search_kind IN $lexical_kinds
  WITH node, score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({kind: node.search_kind, ref_id: node.id, score: score}) AS lexical
}
WITH by_vector, nodes, lexical,
     reduce(ids = [], seed IN by_vector | ids + CASE WHEN seed.kind = 'memory' THEN [h IN seed.hits | h.ref_id] ELSE [] END)
       + reduce(ids = [], x IN nodes | ids + x.memory_ids) AS scored_memories,
     reduce(ids = [], seed IN by_vector | ids + CASE WHEN seed.kind = 'episode' THEN [h IN seed.hits | h.ref_id] ELSE [] END) AS scored_episodes
WITH by_vector, nodes, lexical, scored_memories, scored_episodes,
     [h IN lexical WHERE h.kind = 'memory' AND NOT h.ref_id IN scored_memories | h.ref_id] AS lexical_memories,
     [h IN lexical WHERE h.kind = 'episode' AND NOT h.ref_id IN scored_episodes | h.ref_id] AS lexical_episodes
CALL (scored_memories, lexical_memories) {
  MATCH (m:Memory)
  WHERE m.id IN scored_memories + lexical_memories AND m.user_id = $user_id
  RETURN collect({
    memory: m {.*, embedding: null, search_tokens: null},
    score: CASE
      WHEN m.id IN lexical_memories AND m.embedding IS NOT NULL
        THEN 2 * vector.similarity.cosine(m.embedding, $vector) - 1
    END
  }) AS memories
}
CALL (scored_episodes, lexical_episodes) {
  MATCH (e:Episode)
  WHERE e.id IN scored_episodes + lexical_episodes AND e.user_id = $user_id
  OPTIONAL MATCH (e)-[:NEXT]->(after:Episode)
  WHERE after.user_id = $user_id
  RETURN collect({
    episode: e {.*, embedding: null, search_tokens: null, media_embedding: null},
    score: CASE
      WHEN e.id IN lexical_episodes AND e.embedding IS NOT NULL
        THEN 2 * vector.similarity.cosine(e.embedding, $vector) - 1
    END,
    next_id: after.id
  }) AS episodes
}
RETURN by_vector, nodes, lexical, memories, episodes
