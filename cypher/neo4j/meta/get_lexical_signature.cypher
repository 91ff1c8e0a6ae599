// The tokenizer the lexical index was built with (memory_platform.textutil.lexical_signature).
MATCH (p:PlatformMeta {key: 'lexical_signature'})
RETURN p.value AS signature
