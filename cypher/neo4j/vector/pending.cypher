// Items waiting for a vector (labelled :Pending when written), of one user or
// ($user_id null) of all users, oldest first. The label scan is as small as the backlog.
// An episode is embedded with its speaker, as on SQLite (questions name people).
MATCH (n:Pending)
WHERE $user_id IS NULL OR n.user_id = $user_id
WITH n, coalesce(n.created_at, n.timestamp) AS at
ORDER BY at
LIMIT $limit
RETURN n.user_id AS user_id,
       CASE
         WHEN n:Memory THEN 'memory'
         WHEN n:Topic THEN 'topic'
         WHEN n:Object THEN 'object'
         WHEN n:Episode THEN 'episode'
         ELSE 'knowledge'
       END AS kind,
       n.id AS ref_id,
       CASE
         WHEN n:Episode AND n.speaker IS NOT NULL THEN n.speaker + ': ' + n.text
         ELSE coalesce(n.text, n.content)
       END AS text
