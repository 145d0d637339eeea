\set i random(0, :n - 1)
SELECT tablestore.insert_entity(:t, format('{"PartitionKey":"p%s","RowKey":"%s_new_%s","Age":7,"Name":"Inserted"}',
	lpad((:i / 1000)::text, 5, '0'), lpad((:i % 1000)::text, 6, '0'), txid_current())::tablestore.entity);
