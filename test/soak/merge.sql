\set i random(0, 9999)
\set v random(1, 1000000)
SELECT tablestore.merge_entity('Soak', format('{"PartitionKey":"p%s","RowKey":"%s","Score":%s}', lpad((:i % 100)::text, 2, '0'), lpad(:i::text, 6, '0'), :v::int)::tablestore.entity);
