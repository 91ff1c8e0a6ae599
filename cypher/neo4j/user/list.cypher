// Users with memories or episodes in id order: a page of $limit after $after ('' first).
CALL () {
  MATCH (m:Memory) WHERE m.user_id > $after RETURN DISTINCT m.user_id AS user_id
  UNION
  MATCH (e:Episode) WHERE e.user_id > $after RETURN DISTINCT e.user_id AS user_id
}
RETURN user_id
ORDER BY user_id
LIMIT $limit
