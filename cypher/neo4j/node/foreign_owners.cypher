// Node ids of a new memory that already belong to another user (a conflict).
MATCH (n:Node)
WHERE n.id IN $ids AND n.user_id <> $user_id
RETURN n.id AS id
