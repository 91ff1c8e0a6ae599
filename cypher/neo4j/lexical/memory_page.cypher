// A page of indexed memories of all users, in id order after $after (retokenize), with
// the tokens each holds now so that a page rewrites only what nobody rewrote meanwhile.
MATCH (m:Memory)
WHERE m.id > $after AND m.search_tokens IS NOT NULL
WITH m
ORDER BY m.id
LIMIT $limit
RETURN elementId(m) AS element_id, m.id AS id, m.search_tokens AS search_tokens,
       m {.*, embedding: null, search_tokens: null} AS memory
