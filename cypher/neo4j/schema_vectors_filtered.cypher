// The vector indexes for Neo4j 2026.01 and later, which can filter inside the index:
// each also holds the node's user_id (WITH [n.user_id]), so vector/search_many.cypher
// finds a user's nearest nodes however small a share of the index they are. Applied by
// store/neo4j.py in place of schema.cypher's vector indexes on such servers; an index
// already there under the same name is kept as it is (the store then tells how to
// rebuild it). $dimensions is the configured embedding dimension.
CYPHER 25 CREATE VECTOR INDEX topic_embedding IF NOT EXISTS FOR (n:Topic) ON n.embedding WITH [n.user_id]
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX object_embedding IF NOT EXISTS FOR (n:Object) ON n.embedding WITH [n.user_id]
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON n.embedding WITH [n.user_id]
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON n.embedding WITH [n.user_id]
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CYPHER 25 CREATE VECTOR INDEX knowledge_embedding IF NOT EXISTS FOR (n:Knowledge) ON n.embedding WITH [n.user_id]
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
