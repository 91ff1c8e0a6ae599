UNWIND $episodes AS e
CREATE (n:Episode:Pending)
SET n = e
RETURN count(n) AS created
