// A user's turns of one speaker. The timestamp predicate holds for every episode; it is
// there so that the composite index episode_user_speaker (user_id, speaker, timestamp),
// which wants a predicate on each of its properties, serves the lookup.
MATCH (e:Episode)
WHERE e.user_id = $user_id AND e.speaker = $speaker AND e.timestamp IS NOT NULL
  AND coalesce(e.access_count, 0) >= $min_access
RETURN e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode
ORDER BY e.timestamp, e.id
LIMIT $limit
