// Users with memories waiting for consolidation, in id order: a page of $limit after
// $after ('' first). The seek is on status (the staged are few); the page is cut after.
MATCH (m:Memory)
WHERE m.status = 'staged'
WITH DISTINCT m.user_id AS user_id
WHERE user_id > $after
RETURN user_id
ORDER BY user_id
LIMIT $limit
