// The turns just before the given episodes in their sessions, with the text each gives
// the turn after it as context (none from a turn kept out of search).
MATCH (p:Episode)-[:NEXT]->(e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id AND p.user_id = $user_id
RETURN p.id AS id, e.id AS next_id,
       CASE WHEN coalesce(p.searchable, true) THEN p.text END AS text
