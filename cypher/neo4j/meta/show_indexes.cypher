// Every index, to verify the ones the store uses by name (see store/neo4j_schema.py).
SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state, options, failureMessage
RETURN name, type, entityType, labelsOrTypes, properties, state, options, failureMessage
