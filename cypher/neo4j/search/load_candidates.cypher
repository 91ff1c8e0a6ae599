// Everything one search needs about its candidates, in one round trip: the user's
// memories and episodes with these ids (without vectors or index tokens), the cosine to
// $vector of those in $unscored that have a vector (computed where the vectors are;
// vector.similarity.cosine answers (1 + cos) / 2, mapped back to the cosine), and each
// episode's next turn in its session.
CALL () {
  MATCH (m:Memory)
  WHERE m.id IN $memory_ids AND m.user_id = $user_id
  RETURN collect({
    memory: m {.*, embedding: null, search_tokens: null},
    score: CASE
      WHEN m.id IN $unscored AND m.embedding IS NOT NULL
        THEN 2 * vector.similarity.cosine(m.embedding, $vector) - 1
    END
  }) AS memories
}
CALL () {
  MATCH (e:Episode)
  WHERE e.id IN $episode_ids AND e.user_id = $user_id
  OPTIONAL MATCH (e)-[:NEXT]->(after:Episode)
  WHERE after.user_id = $user_id
  RETURN collect({
    episode: e {.*, embedding: null, search_tokens: null, media_embedding: null},
    score: CASE
      WHEN e.id IN $unscored AND e.embedding IS NOT NULL
        THEN 2 * vector.similarity.cosine(e.embedding, $vector) - 1
    END,
    next_id: after.id
  }) AS episodes
}
RETURN memories, episodes
