// Which of these knowledge versions the user has, and when each was made (seeks of the
// version id's constraint).
UNWIND $version_ids AS version_id
MATCH (v:KnowledgeVersion {version_id: version_id})
WHERE v.user_id = $user_id
RETURN v.version_id AS version_id, v.created_at AS created_at
