// Give turns stored without a speaker the one their text opens with (a pasted
// transcript's first turn of a speaker, known once the speaker speaks again), with the
// fulltext tokens made with it; a turn that has a speaker by now keeps it. The turn and
// the turns beside it, whose vectors' text holds its spoken line, are queued to be
// embedded again (unless kept out of search); their vectors serve until then.
UNWIND $items AS item
MATCH (e:Episode {id: item.id})
WHERE e.user_id = $user_id AND e.speaker IS NULL
SET e.speaker = item.speaker, e.search_tokens = item.search_tokens
WITH e
OPTIONAL MATCH (p:Episode)-[:NEXT]->(e)
  WHERE p.user_id = $user_id
OPTIONAL MATCH (e)-[:NEXT]->(n:Episode)
  WHERE n.user_id = $user_id
WITH e, [x IN [e, p, n] WHERE x IS NOT NULL AND coalesce(x.searchable, true)] AS queued
FOREACH (x IN queued | SET x:Pending, x.pending_token = randomUUID())
RETURN count(DISTINCT e) AS filled
