MATCH (e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id
SET e.access_count = coalesce(e.access_count, 0) + 1
RETURN count(e) AS touched
