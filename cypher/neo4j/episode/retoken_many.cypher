// A stored turn that a late turn now precedes: new lexical tokens with that turn's words
// as context, and queued to be embedded again with it in front (unless it is kept out of
// search). Its vector serves until then: nothing it was made from was deleted.
UNWIND $items AS item
MATCH (e:Episode {id: item.id})
WHERE e.user_id = $user_id
SET e.search_tokens = item.search_tokens
FOREACH (_ IN CASE WHEN coalesce(e.searchable, true) THEN [1] ELSE [] END |
  SET e:Pending, e.pending_token = randomUUID()
)
RETURN count(e) AS retokened
