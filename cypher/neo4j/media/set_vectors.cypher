// A media encoder's vector lives on its episode (one medium per episode), so deleting the
// episode deletes the vector. Its dimension is the encoder's, not the text index's.
UNWIND $rows AS row
MATCH (e:Episode {id: row.ref_id})
WHERE e.user_id = $user_id
SET e.media_modality = $modality, e.media_model = $model, e.media_embedding = row.vector
RETURN count(e) AS stored
