// New lexical tokens for the user's episodes (a turn whose previous turn was deleted is
// indexed without that turn's words).
UNWIND $items AS item
MATCH (e:Episode {id: item.id})
WHERE e.user_id = $user_id
SET e.search_tokens = item.search_tokens
RETURN count(e) AS reindexed
