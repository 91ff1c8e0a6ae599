MERGE (p:PlatformMeta {key: 'embedding_signature'})
ON CREATE SET p.model = $model, p.dimension = $dimension
