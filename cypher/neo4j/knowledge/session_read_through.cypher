// The user's knowledge versions of one session and, for each, when the last turn it read
// was said (when it was made, for a version that does not record it). The predicate on
// seq lets the composite index knowledge_version_user (user_id, seq) find the user's
// versions; the session is a filter on those.
MATCH (v:KnowledgeVersion)
WHERE v.user_id = $user_id AND v.seq IS NOT NULL AND v.session_id = $session_id
RETURN v.version_id AS version_id, coalesce(v.through, v.created_at) AS read_through
