// Applied idempotently at start-up, one statement at a time. $dimensions is the
// configured embedding dimension. Needs Neo4j 5.23 or later (store/neo4j_schema.py checks).
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT node_id IF NOT EXISTS FOR (n:Node) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT knowledge_id IF NOT EXISTS FOR (k:Knowledge) REQUIRE k.id IS UNIQUE;
CREATE CONSTRAINT knowledge_version_id IF NOT EXISTS FOR (v:KnowledgeVersion) REQUIRE v.version_id IS UNIQUE;
CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE;
CREATE CONSTRAINT platform_meta_key IF NOT EXISTS FOR (p:PlatformMeta) REQUIRE p.key IS UNIQUE;
CREATE INDEX memory_user IF NOT EXISTS FOR (m:Memory) ON (m.user_id);
CREATE INDEX memory_user_status IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.status);
CREATE INDEX memory_user_created IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.created_at);
CREATE INDEX memory_status IF NOT EXISTS FOR (m:Memory) ON (m.status);
CREATE INDEX node_user IF NOT EXISTS FOR (n:Node) ON (n.user_id);
CREATE INDEX node_user_kind_norm IF NOT EXISTS FOR (n:Node) ON (n.user_id, n.kind, n.norm);
CREATE INDEX episode_user IF NOT EXISTS FOR (e:Episode) ON (e.user_id);
CREATE INDEX episode_user_session IF NOT EXISTS FOR (e:Episode) ON (e.user_id, e.session_id, e.timestamp);
CREATE INDEX episode_user_speaker IF NOT EXISTS FOR (e:Episode) ON (e.user_id, e.speaker, e.timestamp);
CREATE INDEX episode_user_expiry IF NOT EXISTS FOR (e:Episode) ON (e.user_id, e.expires_at);
CREATE INDEX episode_user_clock IF NOT EXISTS FOR (e:Episode) ON (e.user_id, e.clocked_at);
CREATE INDEX knowledge_user IF NOT EXISTS FOR (k:Knowledge) ON (k.user_id);
CREATE INDEX knowledge_version_user IF NOT EXISTS FOR (v:KnowledgeVersion) ON (v.user_id, v.seq);
CREATE INDEX audit_user IF NOT EXISTS FOR (a:Audit) ON (a.user_id, a.at);
CREATE INDEX topic_user IF NOT EXISTS FOR (n:Topic) ON (n.user_id);
CREATE INDEX object_user IF NOT EXISTS FOR (n:Object) ON (n.user_id);
CREATE VECTOR INDEX topic_embedding IF NOT EXISTS FOR (n:Topic) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX object_embedding IF NOT EXISTS FOR (n:Object) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX knowledge_embedding IF NOT EXISTS FOR (n:Knowledge) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: 'cosine'}};
// Pre-tokenised text (jieba for Chinese, the same tokens as the SQLite backend) with
// the whitespace analyzer, so Chinese matches word by word. The first token of every
// document is the user's hash token, required in every query.
CREATE FULLTEXT INDEX lexical_text IF NOT EXISTS FOR (n:Memory|Episode|Knowledge) ON EACH [n.search_tokens]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
