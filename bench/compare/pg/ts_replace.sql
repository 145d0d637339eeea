\set i random(0, :n - 1)
SELECT tablestore.update_entity('main', cmp_entity(cmp_pk(:i), cmp_rk(:i), :i)::tablestore.entity);
