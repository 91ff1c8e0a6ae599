// Exact cosine over one user's media vectors of one modality and encoder (media memories
// are few per user). vector.similarity.cosine answers (1 + cos) / 2; map it back.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.media_modality = $modality AND e.media_model = $model
  AND size(e.media_embedding) = size($vector)
WITH e, vector.similarity.cosine(e.media_embedding, $vector) AS score
RETURN e.id AS ref_id, 2 * score - 1 AS score
ORDER BY score DESC, ref_id
LIMIT $k
