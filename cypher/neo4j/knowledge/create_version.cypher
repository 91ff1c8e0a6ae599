// A new knowledge version becomes the user's latest (User)-[:LATEST_KNOWLEDGE]->(version).
MERGE (u:User {id: $user_id})
WITH u
OPTIONAL MATCH (u)-[old:LATEST_KNOWLEDGE]->(prev:KnowledgeVersion)
WITH u, old, coalesce(prev.seq, 0) + 1 AS seq
DELETE old
CREATE (v:KnowledgeVersion {version_id: $version_id, user_id: $user_id, session_id: $session_id,
                            created_at: $created_at, through: $through, seq: seq})
CREATE (u)-[:LATEST_KNOWLEDGE]->(v)
WITH v
UNWIND $points AS p
CREATE (v)-[:CONTAINS {position: p.position}]->(k:Knowledge:Pending)
SET k = p
RETURN count(k) AS points
