UNWIND $episodes AS e
CREATE (n:Episode)
SET n = e
RETURN count(n) AS created
