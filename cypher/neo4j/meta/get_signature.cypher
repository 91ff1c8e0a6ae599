MATCH (p:PlatformMeta {key: 'embedding_signature'})
RETURN p.model AS model, p.dimension AS dimension
