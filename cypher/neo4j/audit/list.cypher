// Every record has its time; the predicate on it lets the composite index audit_user
// (user_id, at), which wants one on each of its properties, serve the lookup.
MATCH (a:Audit)
WHERE a.user_id = $user_id AND a.at IS NOT NULL
RETURN a {.*} AS entry
ORDER BY a.at DESC, a.id DESC
LIMIT $limit
