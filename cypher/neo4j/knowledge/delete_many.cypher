// Forgetting: knowledge points go with their vectors and lexical tokens (node properties);
// the versions that held them stay, smaller.
MATCH (k:Knowledge)
WHERE k.user_id = $user_id AND k.id IN $point_ids
DETACH DELETE k
RETURN count(*) AS deleted
