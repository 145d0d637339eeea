\set i random(0, :n - 1)
SELECT * FROM tablestore.get_entity('main', cmp_pk(:i), cmp_rk(:i));
