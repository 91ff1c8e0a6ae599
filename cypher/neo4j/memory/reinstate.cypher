// Undo a consolidation's supersession: only where the newer supersedes the older through
// a discovered link while the older is invalid. The older is write-locked first (_LOCK_,
// held to the end of the transaction), so its invalid_at is read as the last
// transaction to change it left it; its SUPERSEDES and CONFLICTS_WITH links to the newer
// go, and it is current and staged again. One row when it was reinstated, none otherwise.
MATCH (n:Memory {id: $newer_id})-[s:SUPERSEDES]->(o:Memory {id: $older_id})
WHERE n.user_id = $user_id AND o.user_id = $user_id AND s.discovered = true
SET o._LOCK_ = true
REMOVE o._LOCK_
WITH n, s, o
WHERE o.invalid_at IS NOT NULL
WITH s, o, [(n)-[c:CONFLICTS_WITH]-(o) | c] AS conflicts
FOREACH (c IN conflicts | DELETE c)
DELETE s
SET o.status = $status
REMOVE o.invalid_at
RETURN o.id AS id
