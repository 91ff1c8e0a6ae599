// Record (or replace) the tokenizer the lexical index is built with.
MERGE (p:PlatformMeta {key: 'lexical_signature'})
SET p.value = $signature
