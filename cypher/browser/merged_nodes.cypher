// name: Merged nodes
// shows: content nodes that absorbed duplicates during consolidation (merged_from lists the
//   ids folded into them) with the memories that now share them (sensitive ones left out).
// params: :param user_id => 'alice'
MATCH (n:Node {user_id: $user_id})
WHERE size(coalesce(n.merged_from, [])) > 0
MATCH (m:Memory)-[inc:INCLUDES]->(n)
WHERE NOT coalesce(m.sensitive, false)
RETURN n, inc, m
