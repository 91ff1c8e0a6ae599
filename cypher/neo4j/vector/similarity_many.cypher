// Cosine of the user's items of one kind to $vector, computed where the vectors are: a
// search needs one score per candidate, not 896 floats. vector.similarity.cosine answers
// (1 + cos) / 2; it is mapped back to the cosine.
UNWIND $ref_ids AS ref_id
CALL (ref_id) {
  MATCH (n:Memory {id: ref_id}) WHERE $kind = 'memory' RETURN n
  UNION
  MATCH (n:Topic {id: ref_id}) WHERE $kind = 'topic' RETURN n
  UNION
  MATCH (n:Object {id: ref_id}) WHERE $kind = 'object' RETURN n
  UNION
  MATCH (n:Episode {id: ref_id}) WHERE $kind = 'episode' RETURN n
  UNION
  MATCH (n:Knowledge {id: ref_id}) WHERE $kind = 'knowledge' RETURN n
}
WITH n
WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
RETURN n.id AS ref_id, 2 * vector.similarity.cosine(n.embedding, $vector) - 1 AS score
