# test/t/023_upgrade_entity_order.pl - ALTER EXTENSION tablestore UPDATE from 0.3.0 to 0.4.0 with
# entities stored, indexed and partitioned by 0.3.0's comparison (0.4.0 compares entities as sets
# of properties: the written order no longer counts; tablestore--0.3.0--0.4.0.sql, CHANGELOG's
# upgrade note). The library installed is 0.4.0's; each database is made with 0.3.0's SQL, whose
# functions name the C symbols that keep 0.3.0's byte order and hashes (src/type/entity_ops_030.c), so
# what 0.3.0 built is built here the same way - before the update, the "window" between installing
# the library and updating, every check must find what 0.3.0 would. Half the entities are written
# out of name order (their 0.3.0 order and hashes differ from 0.4.0's); each database then runs
# the real update and is checked again:
#
#  1. window: =, entity_cmp and both hashes give 0.3.0's values (taken from the 0.3.0 library);
#     every row is found by its value through B-tree, hash and unique indexes; amcheck passes
#  2. after: found by its value and by its other-order twin through each; amcheck on every B-tree;
#     the GIN indexes (entity_gin_ops: one key per property, no order) and tablestore's own tables'
#     indexes are not rebuilt
#  3. indexes comparing entities indirectly: ARRAY[e], an entity[] column, a composite type, a
#     domain, an expression over entity_hash(e), a partial index whose predicate compares entities
#  4. partitioned tables: a partitioned index over entities (the update used to fail on it), and
#     tables partitioned by hash, range and list on an entity: after the update no row sits in a
#     partition its value does not belong to, and each is found by its value (partition pruning)
#  5. another session's temporary table with an entity index: the update passes it by, says so,
#     and that session goes on; this session's own temporary table is rebuilt
#  6. a unique index over entities that 0.4.0 finds equal: the update fails naming it, with a hint;
#     once the duplicate is gone, it passes
#  7. range or list partition bounds 0.4.0 no longer keeps apart, a hash remainder missing for rows
#     0.4.0 hashes there, and a session that compared entity arrays before updating: refused with
#     a hint, and passing once the way out is taken
# No assertion depends on timing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->start;

my $N = 2000;
# entity i, written out of name order for even i (0.3.0 stored those with its order array)
my $ent = q{(CASE WHEN i % 2 = 0 THEN format('{"Z":%s,"A":1}', i) ELSE format('{"A":1,"Z":%s}', i) END)::tablestore.entity};
# the same properties in the other order: a different value for 0.3.0, an equal one for 0.4.0
my $twin = q{(CASE WHEN i % 2 = 1 THEN format('{"Z":%s,"A":1}', i) ELSE format('{"A":1,"Z":%s}', i) END)::tablestore.entity};

# A database on 0.3.0's SQL with src (i, e, twin; no index) and the helpers of the checks.
sub make_db
{
	my ($db, $sql) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db; ALTER DATABASE $db SET search_path = public, tablestore");
	$node->safe_psql($db, qq{
		CREATE EXTENSION tablestore VERSION '0.3.0';
		CREATE EXTENSION amcheck;
		CREATE TABLE src AS SELECT i, $ent AS e, $twin AS twin FROM generate_series(1, $N) i;
		-- B-tree indexes amcheck (bt_index_check, heapallindexed) finds corrupt, by name
		CREATE FUNCTION btree_failures() RETURNS text LANGUAGE plpgsql AS \$\$
		DECLARE r record; bad text[] := '{}';
		BEGIN
			FOR r IN SELECT c.oid, c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
					 JOIN pg_am a ON a.oid = c.relam
					 WHERE a.amname = 'btree' AND c.relkind = 'i' AND c.relpersistence <> 't'
					   AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'pg_toast'::regnamespace)
					 ORDER BY c.relname LOOP
				BEGIN
					PERFORM bt_index_check(r.oid, true);
				EXCEPTION WHEN OTHERS THEN bad := bad || r.relname::text;
				END;
			END LOOP;
			RETURN array_to_string(bad, ',');
		END \$\$;
		-- rows of src not found in tbl by "<lhs> = <rhs>" with a constant (partition pruning at plan time)
		CREATE FUNCTION missing_by_constant(tbl regclass, col text) RETURNS int LANGUAGE plpgsql AS \$\$
		DECLARE r record; n int; missed int := 0;
		BEGIN
			FOR r IN EXECUTE format('SELECT %I::text AS lit FROM src', col) LOOP
				EXECUTE format('SELECT count(*) FROM %s WHERE e = %L::tablestore.entity', tbl, r.lit) INTO n;
				IF n = 0 THEN missed := missed + 1; END IF;
			END LOOP;
			RETURN missed;
		END \$\$;
		-- rows of a partitioned table in a partition their value does not belong to
		CREATE FUNCTION misplaced(root regclass) RETURNS bigint LANGUAGE plpgsql AS \$\$
		DECLARE r record; n bigint; total bigint := 0;
		BEGIN
			SET LOCAL constraint_exclusion = off;
			FOR r IN SELECT t.relid FROM pg_partition_tree(root) t WHERE t.isleaf LOOP
				EXECUTE format('SELECT count(*) FROM ONLY %s WHERE (%s) IS FALSE', r.relid::regclass,
							   pg_get_partition_constraintdef(r.relid)) INTO n;
				total := total + n;
			END LOOP;
			RETURN total;
		END \$\$;
		$sql});
}

# rows of src not found through an index: a nested loop whose inner side can only be an index scan
sub missing
{
	my ($db, $cond, $index) = @_;
	my $settings = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;';
	my $q = "SELECT count(*) FROM src s WHERE NOT EXISTS (SELECT 1 FROM $cond)";
	my $plan = $node->safe_psql($db, "$settings EXPLAIN (COSTS OFF) $q");
	return "plan without $index:\n$plan" unless $plan =~ /\b\Q$index\E\b/;
	return $node->safe_psql($db, "$settings $q");
}

sub update
{
	my ($db) = @_;
	my ($rc, $out, $err) = $node->psql($db, 'ALTER EXTENSION tablestore UPDATE', on_error_stop => 1);
	my $v = $node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'tablestore'");
	return ($rc, $v, $err);
}

sub filenodes
{
	my ($db, $where) = @_;
	return $node->safe_psql($db, "SELECT string_agg(c.relname || '=' || c.relfilenode, ',' ORDER BY c.relname) FROM pg_class c WHERE $where");
}

# ---------- 1, 2: direct indexes, the window, GIN and tablestore's own tables ----------
make_db('direct', q{
	CREATE TABLE tb AS SELECT * FROM src;  CREATE INDEX tb_e ON tb (e);  CREATE INDEX tb_i ON tb (i);
	CREATE TABLE th AS SELECT * FROM src;  CREATE INDEX th_e ON th USING hash (e);
	CREATE TABLE tu AS SELECT * FROM src;  CREATE UNIQUE INDEX tu_e ON tu (e);
	CREATE TABLE tg AS SELECT * FROM src;  CREATE INDEX tg_e ON tg USING gin (e);
	SELECT tablestore.create_table('Kept');
	SELECT count(tablestore.insert_entity('Kept', format('{"PartitionKey":"p","RowKey":"%s","Z":%s,"A":1}', i, i)::tablestore.entity))
	FROM generate_series(1, 50) i;
	CREATE INDEX kept_z ON tablestore_data.kept (tablestore.filter_key_int32(properties, 'Z'));
});
my $db = 'direct';
# 0.3.0's values, from the 0.3.0 library (92a1ee0) on the same literals
is($node->safe_psql($db, q{SELECT '{"A":1,"B":2}'::tablestore.entity OPERATOR(tablestore.=) '{"B":2,"A":1}'::tablestore.entity,
		tablestore.entity_cmp('{"A":1,"B":2}', '{"B":2,"A":1}'), tablestore.entity_cmp('{"B":2,"A":1}', '{"Z":2,"A":1}'),
		tablestore.entity_hash('{"B":2,"A":1}'), tablestore.entity_hash_extended('{"B":2,"A":1}', 7),
		tablestore.entity_hash('{"Z":"x","A":1.5,"M":true}'), tablestore.entity_hash('{"PartitionKey":"p","RowKey":"r","Z":1,"A":2}'),
		tablestore.entity_hash('{"A":1,"B":2}')}),
	'f|-4|-24|2095291819|184616933475545761|1395534578|-1097010825|1471450106',
	'window: = , entity_cmp and the hashes give 0.3.0\'s values under the 0.4.0 library');
is(missing($db, 'tb t WHERE t.e = s.e', 'tb_e'), '0', 'window: every row found through the B-tree index');
is(missing($db, 'th t WHERE t.e = s.e', 'th_e'), '0', 'window: every row found through the hash index');
is(missing($db, 'tu t WHERE t.e = s.e', 'tu_e'), '0', 'window: every row found through the unique index');
is(missing($db, 'tb t WHERE t.e = s.twin', 'tb_e'), "$N", 'window: no row found by its other-order twin (0.3.0: another value)');
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'window: amcheck passes on every B-tree');
$node->safe_psql($db, "INSERT INTO tb VALUES (-1, '{\"Y\":1,\"B\":2}', NULL); INSERT INTO th VALUES (-1, '{\"Y\":1,\"B\":2}', NULL)");
is($node->safe_psql($db, q{SET enable_seqscan = off; SELECT count(*) FROM tb WHERE e = '{"Y":1,"B":2}'; SELECT count(*) FROM th WHERE e = '{"Y":1,"B":2}'}),
	"1\n1", 'window: a row written in the window is found');

my $kept = q{c.relnamespace = 'tablestore_data'::regnamespace AND c.relkind = 'i' OR c.relname IN ('tg_e', 'tb_i')};
my $kept_before = filenodes($db, $kept);
my ($rc, $v, $err) = update($db);
is("$rc $v", '0 0.4.0', 'the update passes') or diag($err);
is($node->safe_psql($db, q{SELECT '{"A":1,"B":2}'::tablestore.entity OPERATOR(tablestore.=) '{"B":2,"A":1}'::tablestore.entity,
		tablestore.entity_cmp('{"A":1,"B":2}', '{"B":2,"A":1}'), tablestore.entity_hash('{"B":2,"A":1}')}),
	't|0|1471450106', 'after: equal whatever the order, hashed as the name order');
is(missing($db, 'tb t WHERE t.e = s.e', 'tb_e'), '0', 'after: every row found through the B-tree index');
is(missing($db, 'th t WHERE t.e = s.e', 'th_e'), '0', 'after: every row found through the hash index');
is(missing($db, 'tu t WHERE t.e = s.e', 'tu_e'), '0', 'after: every row found through the unique index');
is(missing($db, 'tb t WHERE t.e = s.twin', 'tb_e'), '0', 'after: every row found by its other-order twin (B-tree)');
is(missing($db, 'th t WHERE t.e = s.twin', 'th_e'), '0', 'after: every row found by its other-order twin (hash)');
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'after: amcheck passes on every B-tree');
is(filenodes($db, $kept), $kept_before, 'not rebuilt: the GIN index, tablestore\'s own indexes and filter-key index, an index of the same table not over the entity');
is($node->safe_psql($db, q{SELECT count(*) FROM tg WHERE e OPERATOR(tablestore.@~) 'Z eq 12'}), '1', 'the GIN index still serves its filters');

# ---------- 3: indexes comparing entities indirectly ----------
make_db('indirect', q{
	CREATE TYPE pair AS (k int, e tablestore.entity);
	CREATE DOMAIN dent AS tablestore.entity;
	CREATE TABLE ta AS SELECT * FROM src;                         CREATE INDEX ta_arr ON ta ((ARRAY[e]));
	CREATE TABLE tc AS SELECT i, ARRAY[e, e] AS es FROM src;       CREATE INDEX tc_es ON tc (es);
	CREATE TABLE tp AS SELECT i, ROW(1, e)::pair AS p FROM src;    CREATE INDEX tp_p ON tp (p);
	CREATE TABLE td AS SELECT i, e::dent AS d FROM src;            CREATE INDEX td_d ON td (d);
	CREATE TABLE tx AS SELECT * FROM src;                         CREATE INDEX tx_h ON tx ((tablestore.entity_hash(e)));
	CREATE TABLE tw AS SELECT * FROM src;
	CREATE INDEX tw_partial ON tw (i) WHERE e OPERATOR(tablestore.=) '{"A":1,"Z":2}';
});
$db = 'indirect';
my @indirect = (
	[ 'ta t WHERE ARRAY[t.e] = ARRAY[s.%s]', 'ta_arr', 'ARRAY[e]' ],
	[ 'tc t WHERE t.es = ARRAY[s.%s, s.%s]', 'tc_es', 'an entity[] column' ],
	[ 'tp t WHERE t.p = ROW(1, s.%s)::pair', 'tp_p', 'a composite type' ],
	[ 'td t WHERE t.d = s.%s::dent', 'td_d', 'a domain' ],
	[ 'tx t WHERE tablestore.entity_hash(t.e) = tablestore.entity_hash(s.%s) AND t.i = s.i', 'tx_h', 'an expression over entity_hash' ]);
for my $c (@indirect)
{
	my $cond = $c->[0] =~ s/%s/e/gr;
	is(missing($db, $cond, $c->[1]), '0', "window: every row found through $c->[2]");
}
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'window: amcheck passes on every B-tree');
($rc, $v, $err) = update($db);
is("$rc $v", '0 0.4.0', 'the update passes') or diag($err);
for my $c (@indirect)
{
	my $cond = $c->[0] =~ s/%s/e/gr;
	is(missing($db, $cond, $c->[1]), '0', "after: every row found through $c->[2]");
	$cond = $c->[0] =~ s/%s/twin/gr;
	is(missing($db, $cond, $c->[1]), '0', "after: every row found by its twin through $c->[2]");
}
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'after: amcheck passes on every B-tree (arrays, composites, domains, expressions)');
is($node->safe_psql($db, q{SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT string_agg(i::text, ',' ORDER BY i) FROM tw WHERE e OPERATOR(tablestore.=) '{"A":1,"Z":2}'}),
	'2', 'after: the partial index over an entity comparison holds the row now equal to its predicate');

# ---------- 4: partitioned tables ----------
make_db('pindex', q{
	CREATE TABLE pi (i int, e tablestore.entity) PARTITION BY RANGE (i);
	CREATE TABLE pi1 PARTITION OF pi FOR VALUES FROM (MINVALUE) TO (1000);
	CREATE TABLE pi2 PARTITION OF pi FOR VALUES FROM (1000) TO (MAXVALUE);
	INSERT INTO pi SELECT i, e FROM src;
	CREATE INDEX pi_e ON pi (e);                                  -- a partitioned index over entities
});
$db = 'pindex';
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'window: amcheck passes on the partitions\' indexes');
($rc, $v, $err) = update($db);
is("$rc $v", '0 0.4.0', 'the update passes with a partitioned index over entities') or diag($err);
is($node->safe_psql($db, "SELECT missing_by_constant('pi', 'e') || ' ' || missing_by_constant('pi', 'twin')"), '0 0',
	'after: each row of the partitioned table found by its value and by its twin');
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'after: amcheck passes on the partitions\' indexes');

make_db('parts', q{
	CREATE TABLE hp (i int, e tablestore.entity) PARTITION BY HASH (e);
	CREATE TABLE hp0 PARTITION OF hp FOR VALUES WITH (modulus 4, remainder 0);
	CREATE TABLE hp1 PARTITION OF hp FOR VALUES WITH (modulus 4, remainder 1);
	CREATE TABLE hp2 PARTITION OF hp FOR VALUES WITH (modulus 4, remainder 2);
	CREATE TABLE hp3 PARTITION OF hp FOR VALUES WITH (modulus 4, remainder 3);
	INSERT INTO hp SELECT i, e FROM src;
	CREATE INDEX hp0_e ON hp0 (e);                                -- an index of one partition
	CREATE TABLE rp (i int, e tablestore.entity) PARTITION BY RANGE (e);
	CREATE TABLE rp_low PARTITION OF rp FOR VALUES FROM (MINVALUE) TO ('{"A":1,"Z":5000}');
	CREATE TABLE rp_high PARTITION OF rp FOR VALUES FROM ('{"A":1,"Z":5000}') TO (MAXVALUE);
	INSERT INTO rp SELECT i, e FROM src;
	CREATE TABLE lp (i int, e tablestore.entity) PARTITION BY LIST (e);
	CREATE TABLE lp_two PARTITION OF lp FOR VALUES IN ('{"A":1,"Z":2}', '{"A":1,"Z":3}');
	CREATE TABLE lp_rest PARTITION OF lp DEFAULT;
	INSERT INTO lp SELECT i, e FROM src;
});
$db = 'parts';
for my $t (qw(hp rp lp))
{
	is($node->safe_psql($db, "SELECT misplaced('$t') || ' ' || missing_by_constant('$t', 'e')"), '0 0',
		"window: no row of $t misplaced, each found by its value");
}
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'window: amcheck passes on every B-tree');
($rc, $v, $err) = update($db);
is("$rc $v", '0 0.4.0', 'the update passes with tables partitioned by entities') or diag($err);
for my $t (qw(hp rp lp))
{
	is($node->safe_psql($db, "SELECT misplaced('$t') || ' ' || missing_by_constant('$t', 'e') || ' ' || missing_by_constant('$t', 'twin')"),
		'0 0 0', "after: no row of $t misplaced, each found by its value and by its twin");
	is($node->safe_psql($db, "SELECT count(*) FROM $t"), "$N", "after: $t has all its rows");
}
is($node->safe_psql($db, 'SELECT string_agg(i::text, \',\' ORDER BY i) FROM lp_two'), '2,3',
	'after: the row written {"Z":2,"A":1} moved into the list partition of {"A":1,"Z":2}');
is($node->safe_psql($db, 'SELECT btree_failures()'), '', 'after: amcheck passes on every B-tree');

# ---------- 5: temporary tables ----------
make_db('temps', '');
$db = 'temps';
my $other = $node->background_psql($db);
$other->query_safe(qq{CREATE TEMP TABLE theirs AS SELECT * FROM src; CREATE INDEX theirs_e ON theirs (e)});
($rc, my $out, $err) = $node->psql($db, qq{
	CREATE TEMP TABLE mine AS SELECT * FROM src; CREATE INDEX mine_e ON mine (e);
	ALTER EXTENSION tablestore UPDATE;
	SELECT bt_index_check('mine_e', true);
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM src s WHERE NOT EXISTS (SELECT 1 FROM mine m WHERE m.e = s.twin);});
is($rc, 0, 'the update passes while another session has a temporary table with an entity index') or diag($err);
like($err, qr/WARNING:.*another session.*theirs_e/, 'the update says which index of another session it passed by');
is((split /\n/, $out)[-1], '0', 'the updating session\'s own temporary table is rebuilt');
is($other->query_safe('SELECT count(*) FROM theirs'), "$N", 'the other session goes on');
$other->quit;

# ---------- 6: a unique index over entities equal in 0.4.0 ----------
make_db('dups', q{CREATE TABLE tu (i int, e tablestore.entity); CREATE UNIQUE INDEX tu_e ON tu (e);
	INSERT INTO tu VALUES (1, '{"A":1,"B":2}'), (2, '{"B":2,"A":1}'), (3, '{"C":3}');});
$db = 'dups';
($rc, $v, $err) = update($db);
is($v, '0.3.0', 'the update refuses entities equal under a unique index');
like($err, qr/tu_e.*\n(.*\n)*HINT:.*order/, 'naming the index, with a hint on what to do');
$node->safe_psql($db, 'DELETE FROM tu WHERE i = 2');
($rc, $v, $err) = update($db);
is("$rc $v", '0 0.4.0', 'once the duplicate is gone, the update passes') or diag($err);

# ---------- 7: partition bounds 0.4.0 no longer keeps apart; a session that compared before ----------
make_db('rbounds', q{CREATE TABLE rb (e tablestore.entity) PARTITION BY RANGE (e);
	-- 0.3.0 sorts every entity written in name order before any written out of it
	CREATE TABLE rb1 PARTITION OF rb FOR VALUES FROM ('{"A":1,"C":1}') TO ('{"B":1,"A":1}');});
($rc, $v, $err) = update('rbounds');
is($v, '0.3.0', 'the update refuses a range partition whose bounds 0.4.0 puts the other way round');
like($err, qr/partitions of table public\.rb .*0\.4\.0.*\n(.*\n)*DETAIL:.*empty range(.*\n)*HINT:.*[Dd]etach/, 'naming the table, PostgreSQL\'s reason and what to do');
make_db('lbounds', q{CREATE TABLE lb (e tablestore.entity) PARTITION BY LIST (e);
	CREATE TABLE lb1 PARTITION OF lb FOR VALUES IN ('{"A":1,"B":2}');
	CREATE TABLE lb2 PARTITION OF lb FOR VALUES IN ('{"B":2,"A":1}');});
($rc, $v, $err) = update('lbounds');
is($v, '0.3.0', 'the update refuses list partitions whose values 0.4.0 finds equal');
like($err, qr/partitions of table public\.lb .*\n(.*\n)*DETAIL:.*overlap/, 'naming the table and the overlap');
$node->safe_psql('lbounds', 'ALTER TABLE lb DETACH PARTITION lb2');
($rc, $v, $err) = update('lbounds');
is("$rc $v", '0 0.4.0', 'once the partition is detached, the update passes') or diag($err);

make_db('holes', q{CREATE TABLE hh (i int, e tablestore.entity) PARTITION BY HASH (e);
	CREATE TABLE hh0 PARTITION OF hh FOR VALUES WITH (modulus 2, remainder 0);
	INSERT INTO hh SELECT i, e FROM src WHERE satisfies_hash_partition('hh'::regclass, 2, 0, e);});
($rc, $v, $err) = update('holes');
is($v, '0.3.0', 'the update refuses a row that 0.4.0\'s hash sends to a partition that does not exist');
like($err, qr/row of table public\.hh has no partition(.*\n)*HINT:.*missing hash remainder/, 'naming the table and what to add');
$node->safe_psql('holes', 'CREATE TABLE hh1 PARTITION OF hh FOR VALUES WITH (modulus 2, remainder 1)');
($rc, $v, $err) = update('holes');
is("$rc $v", '0 0.4.0', 'once the partition exists, the update passes') or diag($err);
is($node->safe_psql('holes', "SELECT misplaced('hh') || ' ' || (SELECT count(*) FROM hh1 WHERE satisfies_hash_partition('hh'::regclass, 2, 1, e))"),
	'0 ' . $node->safe_psql('holes', 'SELECT count(*) FROM hh1'), 'and moves the rows into it');

make_db('cached', '');
($rc, $out, $err) = $node->psql('cached', q{SELECT ARRAY['{"B":1,"A":1}'::tablestore.entity] = ARRAY['{"A":1,"B":1}'::tablestore.entity];
	ALTER EXTENSION tablestore UPDATE;});
like($err, qr/this session compared values of type entity (.*\n)*HINT:.*new session/,
	'a session that compared entity arrays before is refused the update (it would keep 0.3.0\'s comparison)');
($rc, $v, $err) = update('cached');
is("$rc $v", '0 0.4.0', 'a new session updates') or diag($err);
is($node->safe_psql('cached', q{SELECT ARRAY['{"B":1,"A":1}'::tablestore.entity] = ARRAY['{"A":1,"B":1}'::tablestore.entity]}), 't',
	'and compares arrays of entities the 0.4.0 way');

$node->stop;
done_testing();
