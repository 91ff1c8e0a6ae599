MATCH (m:Memory)
WHERE m.status = 'staged'
RETURN DISTINCT m.user_id AS user_id
ORDER BY user_id
LIMIT $limit
