// A turn whose previous turn was deleted: new lexical tokens without that turn's words,
// and its vector, made with that turn in front, dropped and queued to be made again.
UNWIND $items AS item
MATCH (e:Episode {id: item.id})
WHERE e.user_id = $user_id
SET e.search_tokens = item.search_tokens, e:Pending, e.pending_token = randomUUID()
REMOVE e.embedding
RETURN count(e) AS reindexed
