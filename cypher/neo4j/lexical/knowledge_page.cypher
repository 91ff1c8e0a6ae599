// A page of indexed knowledge points of all users, in id order after $after (retokenize).
MATCH (k:Knowledge)
WHERE k.id > $after AND k.search_tokens IS NOT NULL
RETURN elementId(k) AS element_id, k.id AS id, k.user_id AS user_id,
       k.search_tokens AS search_tokens, k.content AS content
ORDER BY k.id
LIMIT $limit
