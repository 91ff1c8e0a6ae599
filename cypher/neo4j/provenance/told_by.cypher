// The user's memories and knowledge points whose metadata may name one of some episodes:
// its JSON text holds one's id written as a JSON string ($needles). The store keeps those
// whose `episode_ids` list does. Neo4j indexes no list element, so the user's items are
// filtered here, in the database, after their user index: none is sent to the client.
MATCH (m:Memory)
WHERE m.user_id = $user_id AND any(needle IN $needles WHERE m.metadata CONTAINS needle)
RETURN 'memory' AS kind, m.id AS id, m.metadata AS metadata
UNION ALL
MATCH (k:Knowledge)
WHERE k.user_id = $user_id AND any(needle IN $needles WHERE k.metadata CONTAINS needle)
RETURN 'knowledge' AS kind, k.id AS id, k.metadata AS metadata
