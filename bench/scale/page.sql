\set p random(0, :n / 1000 - 1)
\set r random(0, 899)
SELECT tablestore.query_page(:t, format('PartitionKey eq ''p%s''', lpad(:p::text, 5, '0')), NULL, 100,
	format('p%s', lpad(:p::text, 5, '0')), lpad(:r::text, 6, '0'));
