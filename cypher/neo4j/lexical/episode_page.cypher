// A page of indexed turns of all users, in id order after $after (retokenize), each with
// the text its previous turn gives it as context (none from a turn kept out of search).
MATCH (e:Episode)
WHERE e.id > $after AND e.search_tokens IS NOT NULL
WITH e
ORDER BY e.id
LIMIT $limit
OPTIONAL MATCH (p:Episode)-[:NEXT]->(e)
WHERE p.user_id = e.user_id
RETURN elementId(e) AS element_id, e.id AS id, e.search_tokens AS search_tokens,
       e {.*, embedding: null, search_tokens: null, media_embedding: null} AS episode,
       CASE WHEN coalesce(p.searchable, true) THEN p.text END AS previous_text
ORDER BY e.id
