// Turns embedded with a deleted turn after them: the vector is dropped (the deleted
// words must not stay searchable through it) and the turn queued to be embedded again,
// unless it is kept out of search (it has no vector to renew).
UNWIND $episode_ids AS id
MATCH (e:Episode {id: id})
WHERE e.user_id = $user_id
REMOVE e.embedding
FOREACH (_ IN CASE WHEN coalesce(e.searchable, true) THEN [1] ELSE [] END |
  SET e:Pending, e.pending_token = randomUUID()
)
RETURN count(e) AS queued
