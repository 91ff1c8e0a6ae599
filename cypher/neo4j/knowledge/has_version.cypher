// Whether the user has this knowledge version (a seek of its uniqueness constraint).
OPTIONAL MATCH (v:KnowledgeVersion {version_id: $version_id})
WHERE v.user_id = $user_id
RETURN v IS NOT NULL AS found
