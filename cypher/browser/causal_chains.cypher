// name: Causal chains
// shows: every chain of CAUSES links from a first cause to a last effect (up to five
//   steps), longest first: what the platform follows when asked "why". Chains through a
//   sensitive memory are not shown.
// params: :param user_id => 'alice'
MATCH chain = (cause:Memory {user_id: $user_id})-[:CAUSES*1..5]->(effect:Memory)
WHERE NOT EXISTS { MATCH (:Memory)-[:CAUSES]->(cause) }
  AND NOT EXISTS { MATCH (effect)-[:CAUSES]->(:Memory) }
  AND none(step IN nodes(chain) WHERE coalesce(step.sensitive, false))
RETURN chain
ORDER BY length(chain) DESC
LIMIT 50
