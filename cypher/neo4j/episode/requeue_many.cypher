// Turns embedded with a deleted turn after them: the vector is dropped (the deleted
// words must not stay searchable through it) and the turn queued to be embedded again.
UNWIND $episode_ids AS id
MATCH (e:Episode {id: id})
WHERE e.user_id = $user_id
SET e:Pending, e.pending_token = randomUUID()
REMOVE e.embedding
RETURN count(e) AS queued
