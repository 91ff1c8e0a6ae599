// A turn whose previous turn was deleted: new lexical tokens without that turn's words,
// and its vector, made with that turn in front, dropped and queued to be made again
// (unless the turn is kept out of search: it has no vector to renew).
UNWIND $items AS item
MATCH (e:Episode {id: item.id})
WHERE e.user_id = $user_id
SET e.search_tokens = item.search_tokens
REMOVE e.embedding
FOREACH (_ IN CASE WHEN coalesce(e.searchable, true) THEN [1] ELSE [] END |
  SET e:Pending, e.pending_token = randomUUID()
)
RETURN count(e) AS reindexed
