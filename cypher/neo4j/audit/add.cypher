// An audit record of forgetting: ids, counts, who and when; never content.
CREATE (a:Audit)
SET a = $entry
RETURN a.id AS id
