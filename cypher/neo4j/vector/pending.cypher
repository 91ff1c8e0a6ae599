// Items waiting for a vector (labelled :Pending when written), of one user or
// ($user_id null) of all users, oldest first. The label scan is as small as the backlog.
// An episode is embedded as said ("speaker: text"), between the turns before and after
// it in its session, as on SQLite (episode_embedding_text): a reply means something only
// after the question it answers, and a statement is often taken up by the answer to it.
// A turn kept out of search (searchable false) is no other turn's context either.
// version: which queuing this is (pending_token, renewed when an item is queued again).
MATCH (n:Pending)
WHERE $user_id IS NULL OR n.user_id = $user_id
WITH n, coalesce(n.created_at, n.timestamp) AS at
ORDER BY at
LIMIT $limit
OPTIONAL MATCH (before:Episode)-[:NEXT]->(n)
  WHERE coalesce(before.searchable, true)
WITH n, at, head(collect(coalesce(before.speaker + ': ', '') + before.text)) AS previous
OPTIONAL MATCH (n)-[:NEXT]->(after:Episode)
  WHERE coalesce(after.searchable, true)
WITH n, at, previous, head(collect(coalesce(after.speaker + ': ', '') + after.text)) AS following
RETURN n.user_id AS user_id,
       CASE
         WHEN n:Memory THEN 'memory'
         WHEN n:Topic THEN 'topic'
         WHEN n:Object THEN 'object'
         WHEN n:Episode THEN 'episode'
         ELSE 'knowledge'
       END AS kind,
       n.id AS ref_id,
       coalesce(n.pending_token, '') AS version,
       CASE
         WHEN n:Episode
           THEN coalesce(previous + '\n', '') + coalesce(n.speaker + ': ', '') + n.text
             + coalesce('\n' + following, '')
         ELSE coalesce(n.text, n.content)
       END AS text
ORDER BY at
