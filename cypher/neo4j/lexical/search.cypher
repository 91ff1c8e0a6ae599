// $query is built from the platform's own tokens (letters, digits, CJK), each quoted;
// the user's hash token is required, so only that user's documents match.
CALL db.index.fulltext.queryNodes('lexical_text', $query, {limit: $fetch}) YIELD node, score
WHERE node.user_id = $user_id AND node.search_kind IN $kinds
RETURN node.search_kind AS kind, node.id AS ref_id, score
ORDER BY score DESC, ref_id
LIMIT $k
