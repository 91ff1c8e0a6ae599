// The latest existing episode of a session at or before $before that has no successor,
// and its text, which the next turn is indexed after (none if it is kept out of search).
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.session_id = $session_id AND e.timestamp <= $before
  AND NOT e.id IN $exclude AND NOT EXISTS { (e)-[:NEXT]->() }
RETURN e.id AS id, CASE WHEN coalesce(e.searchable, true) THEN e.text END AS text
ORDER BY e.timestamp DESC, e.id DESC
LIMIT 1
