// The stored turn of a session said last at or before $at (the new turns, $exclude, left
// out): a new turn goes after it. With the turn after it in the chain (none for the
// session's last), and its text, which the new turn is indexed after (none if it is kept
// out of search). The composite index episode_user_session serves the range in order.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id AND e.timestamp <= $at
  AND NOT e.id IN $exclude
WITH e
ORDER BY e.timestamp DESC, e.id DESC
LIMIT 1
OPTIONAL MATCH (e)-[:NEXT]->(following:Episode)
RETURN e.id AS id, e.timestamp AS timestamp, following.id AS next_id,
       CASE WHEN coalesce(e.searchable, true) THEN e.text END AS text
