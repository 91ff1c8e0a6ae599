// reembed: drop every stored vector and queue every item for embedding again
// (:Pending), but an episode kept out of search (searchable false), then record the new
// embedding signature, all in one transaction.
CALL () {
  MATCH (n:Memory|Topic|Object|Episode|Knowledge)
  REMOVE n.embedding
  WITH n
  WHERE coalesce(n.searchable, true)
  SET n:Pending
  RETURN count(n) AS queued
}
MERGE (p:PlatformMeta {key: 'embedding_signature'})
SET p.model = $model, p.dimension = $dimension
RETURN queued
