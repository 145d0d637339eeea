\set p random(0, 99)
SELECT * FROM tablestore.query_entities('Soak', format('PartitionKey eq ''p%s'' and Age gt 30', lpad(:p::text, 2, '0')), 'Name,Age', 50);
