// How many items of all users the fulltext index holds (those with search tokens).
RETURN COUNT { MATCH (m:Memory) WHERE m.search_tokens IS NOT NULL }
     + COUNT { MATCH (e:Episode) WHERE e.search_tokens IS NOT NULL }
     + COUNT { MATCH (k:Knowledge) WHERE k.search_tokens IS NOT NULL } AS documents
