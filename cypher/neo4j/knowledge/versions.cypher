// Every version has its sequence number; the predicate on it lets the composite index
// knowledge_version_user (user_id, seq), which wants one on each of its properties,
// serve the lookup.
MATCH (v:KnowledgeVersion)
WHERE v.user_id = $user_id AND v.seq IS NOT NULL
WITH v ORDER BY v.seq DESC LIMIT $limit
OPTIONAL MATCH (v)-[c:CONTAINS]->(k:Knowledge)
WITH v, k ORDER BY k.position
RETURN v.version_id AS version_id, v.session_id AS session_id, v.created_at AS created_at,
       v.through AS through, v.seq AS seq,
       collect(k {.id, .content, .type, .score, .metadata}) AS points
ORDER BY seq DESC
