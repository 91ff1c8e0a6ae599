// Delete the user's episodes with these ids (and their NEXT links); a turn that pointed at
// a deleted one now points at nothing. Ids of other users are left alone.
MATCH (e:Episode)
WHERE e.id IN $episode_ids AND e.user_id = $user_id
DETACH DELETE e
RETURN count(*) AS deleted
