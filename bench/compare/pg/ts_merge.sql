\set i random(0, :n - 1)
\set v random(1, 1000000)
SELECT tablestore.merge_entity('main', format('{"PartitionKey":"%s","RowKey":"%s","Score":%s}', cmp_pk(:i), cmp_rk(:i), :v::int)::tablestore.entity);
