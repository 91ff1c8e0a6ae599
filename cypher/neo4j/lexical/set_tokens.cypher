// New search tokens for indexed items, each only if its tokens are still those read
// (an item written meanwhile was tokenized as it was written).
UNWIND $items AS item
MATCH (n)
WHERE elementId(n) = item.element_id AND n.search_tokens = item.previous
SET n.search_tokens = item.search_tokens
RETURN count(n) AS rewritten
