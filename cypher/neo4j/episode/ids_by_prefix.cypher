// The ids of a user's episodes that start with $id_prefix (an integration's items), by a
// prefix seek of the id's uniqueness index; nothing else of them is read.
MATCH (e:Episode)
WHERE e.id STARTS WITH $id_prefix AND e.user_id = $user_id
RETURN e.id AS id
ORDER BY id
