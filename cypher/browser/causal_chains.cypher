// name: Causal chains
// shows: every chain of CAUSES links from a first cause to a last effect (up to five
//   steps), longest first: what the platform follows when asked "why".
// params: :param user_id => 'alice'
MATCH chain = (cause:Memory {user_id: $user_id})-[:CAUSES*1..5]->(effect:Memory)
WHERE NOT EXISTS { MATCH (:Memory)-[:CAUSES]->(cause) }
  AND NOT EXISTS { MATCH (effect)-[:CAUSES]->(:Memory) }
RETURN chain
ORDER BY length(chain) DESC
LIMIT 50
