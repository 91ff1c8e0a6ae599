// Exact cosine over one user's Knowledge vectors: used when the ANN over-fetch does not
// find enough of this user's items (a user owning few of them).
MATCH (n:Knowledge)
WHERE n.user_id = $user_id AND n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
RETURN n.id AS ref_id, 2 * score - 1 AS score
ORDER BY score DESC, ref_id
LIMIT $k
