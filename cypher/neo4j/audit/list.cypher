MATCH (a:Audit)
WHERE a.user_id = $user_id
RETURN a {.*} AS entry
ORDER BY a.at DESC, a.id DESC
LIMIT $limit
