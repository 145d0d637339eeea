\set p random(0, 99)
SELECT tablestore.query_page('Soak', format('PartitionKey eq ''p%s''', lpad(:p::text, 2, '0')), NULL, 20);
