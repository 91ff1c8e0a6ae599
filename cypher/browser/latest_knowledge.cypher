// name: Latest knowledge
// shows: a table of the knowledge points of the user's newest version (session-end
//   extraction), best score first; a sensitive point's text is redacted.
// params: :param user_id => 'alice'
MATCH (:User {id: $user_id})-[:LATEST_KNOWLEDGE]->(version:KnowledgeVersion)-[:CONTAINS]->(k:Knowledge)
RETURN CASE WHEN coalesce(k.sensitive, false) THEN '[sensitive]' ELSE k.content END AS knowledge, k.type AS type, k.score AS score, version.session_id AS session
ORDER BY score DESC
