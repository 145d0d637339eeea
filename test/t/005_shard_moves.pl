# test/t/005_shard_moves.pl - shard moves that never lose an acknowledged write (doc/scale-out.md):
# 1 coordinator and 3 nodes, each a cluster of its own, and tablestore-gateway routing one-partition
# calls straight to the nodes (--node).
#
# 1. Plain SQL INSERT/UPDATE/DELETE/COPY/TRUNCATE writing on two nodes in one transaction is refused
#    (TSX04) before the second node is written: a COMMIT that would fail on node 2 leaves nothing
#    committed on node 1.
# 2. Shard fences: a node refuses direct calls for a shard a move is copying to it or has switched
#    away from (TSX03); calls forwarded by the coordinator pass, and only those: a role of the node
#    that marks its calls as the coordinator's (routed_by_coordinator) is refused.
# 3. A shard moves away and back while the gateway keeps its shard map (10 s): the gateway's calls
#    reach the old node's filling copy, which refuses them, and the coordinator answers: every
#    acknowledged write is there, and pages during the move miss none.
# 4. A move past its time limit, a cancelled move and a move whose session is killed leave nothing
#    on any node (after move_shard_cleanup for the last), and a retry succeeds.
# 5. A target that falls behind: the coordinator's lock is held for at most a second at a time, so
#    calls through the coordinator on other shards never wait long.
# 6. A 40-second soak: mixed writes through the routed gateway with moves every 10 s, verified by
#    the clients' logs (test/soak/moves.sh runs it for 10 minutes).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/lib";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use JSON::PP;
use Time::HiRes qw(time sleep);
use Test::More;
use TsMoves;

my $env = TsMoves::start_clusters(db => 'moves');
my ($coord, $db) = ($env->{coord}, $env->{db});
my %node = %{ $env->{node} };
sub c { return $coord->safe_psql($db, $_[0]) }
sub on { my ($n, $sql) = @_; return $node{$n}->safe_psql($db, $sql) }
# TS_MOVES_ONLY=1,3 runs only those parts (each part but 4 stands alone)
my %only = map { $_ => 1 } split /,/, ($ENV{TS_MOVES_ONLY} // '1,2,3,4,5,6');

c(q{SELECT tablestore.create_table('Orders'); SELECT tablestore.distribute_table('Orders', ARRAY['n1', 'n2', 'n3'], 8);
	SET tablestore.allow_multi_node_writes = on;
	SELECT count(tablestore.insert_entity('Orders', format('{"PartitionKey":"p%s","RowKey":"%s","n":%s}', i % 20, lpad(i::text, 4, '0'), i)::tablestore.entity))
	FROM generate_series(1, 400) i;});
# a partition of each node
my %pk_on = map { split /\|/ } split /\n/, c(q{SELECT DISTINCT ON (server) server, 'p' || i FROM generate_series(0, 19) i,
	tablestore.route('Orders', 'p' || i) ORDER BY server, i});
my ($pa, $pb) = @pk_on{qw(n1 n2)};
my $shard_of = sub { c("SELECT shard FROM tablestore.route('Orders', '$_[0]')") };

# ---------- 1. plain SQL on two nodes ----------
if ($only{1})
{
	my $sb = $shard_of->($pb);
	on('n2', qq{CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS \$\$
		BEGIN RAISE EXCEPTION 'node2 refuses to commit'; END \$\$;
		CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON tablestore_shards.orders_$sb DEFERRABLE INITIALLY DEFERRED
		FOR EACH ROW WHEN (NEW.row_key = 'commitfail') EXECUTE FUNCTION fail_at_commit();});
	my $row = sub { "('$_[0]', '$_[1]', now(), '', '{}')" };
	my ($rc, $out, $err) = $coord->psql($db, "BEGIN;
		INSERT INTO tablestore_data.orders VALUES " . $row->($pa, 'commitfail') . ";
		INSERT INTO tablestore_data.orders VALUES " . $row->($pb, 'commitfail') . ";
		COMMIT;");
	like($err, qr/NotSupported: this transaction wrote on the node "n1" and would now write on "n2"/,
		'plain SQL INSERTs on two nodes in one transaction: the second node is refused (TSX04)');
	is(on('n1', q{SELECT count(*) FROM tablestore_data.orders WHERE row_key = 'commitfail'}) .
		on('n2', q{SELECT count(*) FROM tablestore_data.orders WHERE row_key = 'commitfail'}), '00',
		'and nothing of it is committed on either node (node 2 would have failed at COMMIT)');
	($rc, $out, $err) = $coord->psql($db, "INSERT INTO tablestore_data.orders VALUES " . $row->($pa, 'both') . ', ' . $row->($pb, 'both'));
	like($err, qr/TSX04|NotSupported: this transaction wrote on the node/, 'one INSERT of rows for two nodes is refused');
	($rc, $out, $err) = $coord->psql($db, "COPY tablestore_data.orders FROM STDIN;\n$pa\tcopied\t2024-01-01 00:00:00+00\t\t{}\n$pb\tcopied\t2024-01-01 00:00:00+00\t\t{}\n\\.\n");
	like($err, qr/NotSupported: this transaction wrote on the node/, 'COPY of rows for two nodes is refused');
	($rc, $out, $err) = $coord->psql($db, "UPDATE tablestore_data.orders SET properties = properties WHERE partition_key IN ('$pa', '$pb')");
	like($err, qr/NotSupported: this transaction wrote on the node/, 'an UPDATE on two nodes is refused');
	($rc, $out, $err) = $coord->psql($db, "DELETE FROM tablestore_data.orders WHERE partition_key IN ('$pa', '$pb')");
	like($err, qr/NotSupported: this transaction wrote on the node/, 'a DELETE on two nodes is refused');
	($rc, $out, $err) = $coord->psql($db, "TRUNCATE tablestore_data.orders");
	like($err, qr/NotSupported: this transaction wrote on the node/, 'a TRUNCATE of a table on three nodes is refused');
	($rc, $out, $err) = $coord->psql($db, "BEGIN; SELECT tablestore.insert_entity('Orders', '{\"PartitionKey\":\"$pa\",\"RowKey\":\"mixed\"}');
		INSERT INTO tablestore_data.orders VALUES " . $row->($pb, 'mixed') . "; COMMIT;");
	like($err, qr/NotSupported: this transaction wrote on the node "n1" and would now write on "n2"/,
		'a function\'s write on node 1, then plain SQL on node 2: refused');
	($rc, $out, $err) = $coord->psql($db, "BEGIN; INSERT INTO tablestore_data.orders VALUES " . $row->($pa, 'mixed') . ";
		SELECT tablestore.insert_entity('Orders', '{\"PartitionKey\":\"$pb\",\"RowKey\":\"mixed\"}'); COMMIT;");
	like($err, qr/NotSupported: this transaction wrote on the node "n1" and would now write on "n2"/,
		'plain SQL on node 1, then a function\'s write on node 2: refused');
	is(c(q{SELECT count(*) FROM tablestore_data.orders WHERE row_key IN ('both', 'copied', 'mixed')}) . c('SELECT count(*) FROM tablestore_data.orders'),
		'0400', 'none of the refused statements wrote anything');
	is(c("BEGIN; INSERT INTO tablestore_data.orders VALUES " . $row->($pa, 's1') . ', ' . $row->($pa, 's2') . ";
		UPDATE tablestore_data.orders SET properties = '{\"x\":1}' WHERE partition_key = '$pa' AND row_key LIKE 's%';
		DELETE FROM tablestore_data.orders WHERE partition_key = '$pa' AND row_key = 's2';
		COMMIT; SELECT count(*) FROM tablestore_data.orders WHERE row_key LIKE 's_'"), '1', 'plain SQL on one node works');
	is(c("SET tablestore.allow_multi_node_writes = on; INSERT INTO tablestore_data.orders VALUES " . $row->($pa, 'both') . ', ' . $row->($pb, 'both') . ";
		SELECT count(*) FROM tablestore_data.orders WHERE row_key = 'both'"), '2', 'and on two with tablestore.allow_multi_node_writes');
	c(q{SET tablestore.allow_multi_node_writes = on; DELETE FROM tablestore_data.orders WHERE row_key IN ('both', 's1')});

	# postgres_fdw drops the statements it prepared on a node (DEALLOCATE ALL) when a transaction
	# had an error; the statements of forwarded calls are prepared again after it
	my $rk = c("SELECT min(row_key) FROM tablestore_data.orders WHERE partition_key = '$pa'");
	($rc, $out, $err) = $coord->psql($db, "SELECT etag FROM tablestore.get_entity('Orders', '$pa', '$rk');
		BEGIN;
		UPDATE tablestore_data.orders SET properties = properties WHERE partition_key = '$pa' AND row_key = '$rk';
		SAVEPOINT s;
		SELECT tablestore.insert_entity('Orders', '{\"PartitionKey\":\"$pa\",\"RowKey\":\"$rk\"}');
		ROLLBACK TO s;
		COMMIT;
		SELECT etag FROM tablestore.get_entity('Orders', '$pa', '$rk');", on_error_stop => 0);
	like($out, qr/^W\/\S+\nW\/\S+$/, 'a forwarded call works after postgres_fdw dropped its prepared statements') or diag($err);
}

# ---------- 2. shard fences ----------
if ($only{2})
{
	my $s = $shard_of->('p3');
	my $owner = c(q{SELECT server FROM tablestore.route('Orders', 'p3')});
	on($owner, qq{INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move)
		VALUES ('tablestore_shards.orders_$s', 'orders', $s, 'moved', 'test')});
	my ($rc, $out, $err) = $node{$owner}->psql($db, q{SELECT etag FROM tablestore.get_entity('Orders', 'p3', '0003')});
	like($err, qr/InternalError: shard \d+ of the table "orders" is moved away from this node/, 'a fenced shard refuses a direct read (TSX03)');
	($rc, $out, $err) = $node{$owner}->psql($db, q{SELECT tablestore.insert_entity('Orders', '{"PartitionKey":"p3","RowKey":"fenced"}')});
	like($err, qr/is moved away from this node/, 'and a direct write');
	($rc, $out, $err) = $node{$owner}->psql($db, q{SELECT tablestore.query_page('Orders', 'PartitionKey eq ''p3''', NULL, 10)});
	like($err, qr/is moved away from this node/, 'and a partition query');
	like(c(q{SELECT etag FROM tablestore.get_entity('Orders', 'p3', '0003')}), qr/^W\//, 'a call forwarded by the coordinator passes the fence');
	on($owner, q{DELETE FROM tablestore_internal.shard_fences});
	like(on($owner, q{SELECT etag FROM tablestore.get_entity('Orders', 'p3', '0003')}), qr/^W\//, 'without the fence the node answers');

	# Only the coordinator passes a fence: a role of the node's own that marks its calls as the
	# coordinator's (routed_by_coordinator, which anyone may call) is refused, a coordinator
	# whose user mapping's role is not a superuser still passes (it owns the node's table).
	for my $n (qw(n1 n2 n3))
	{
		on($n, q{CREATE ROLE app LOGIN; GRANT CREATE ON SCHEMA tablestore_data, tablestore_shards TO app;
			CREATE ROLE mallory LOGIN});
	}
	c(q{CREATE ROLE app LOGIN; GRANT CREATE ON SCHEMA tablestore_data, tablestore_shards TO app; GRANT USAGE ON FOREIGN SERVER n1, n2, n3 TO app;
		CREATE USER MAPPING FOR app SERVER n1 OPTIONS (user 'app', password_required 'false');
		CREATE USER MAPPING FOR app SERVER n2 OPTIONS (user 'app', password_required 'false');
		CREATE USER MAPPING FOR app SERVER n3 OPTIONS (user 'app', password_required 'false');
		SET ROLE app; SELECT tablestore.create_table('Apps'); SELECT tablestore.distribute_table('Apps', ARRAY['n1', 'n2', 'n3'], 3);
		SELECT tablestore.insert_entity('Apps', '{"PartitionKey":"a1","RowKey":"r1"}')});
	my $as = c(q{SELECT shard FROM tablestore.route('Apps', 'a1')});
	my $ao = c(q{SELECT server FROM tablestore.route('Apps', 'a1')});
	is(on($ao, qq{SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'tablestore_shards.apps_$as'::regclass}), 'app',
		'the node\'s shard table belongs to the user mapping\'s role');
	on($ao, qq{GRANT SELECT, INSERT, UPDATE, DELETE ON tablestore_data.apps, tablestore_shards.apps_$as TO mallory;
		INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move)
		VALUES ('tablestore_shards.apps_$as', 'apps', $as, 'filling', 'test')});
	my $mallory = sub { my ($sql) = @_; my ($rc, $out, $err) = $node{$ao}->psql($db, "SET ROLE mallory; $sql"); return "$out$err" };
	like($mallory->(q{SELECT tablestore.insert_entity(tablestore.routed_by_coordinator('Apps'::text), '{"PartitionKey":"a1","RowKey":"sneaked"}')}),
		qr/shard \d+ of the table "apps" is being copied to this node/, 'a plain role on a node cannot pass a fence with routed_by_coordinator (write)');
	like($mallory->(q{SELECT etag FROM tablestore.get_entity(tablestore.routed_by_coordinator('Apps'::text), 'a1', 'r1')}),
		qr/is being copied to this node/, 'nor read through it');
	is(on($ao, q{SELECT count(*) FROM tablestore_data.apps WHERE row_key = 'sneaked'}), '0', 'nothing was written into the fenced shard');
	like(c(q{SET ROLE app; SELECT etag FROM tablestore.get_entity('Apps', 'a1', 'r1')}), qr/^W\//,
		'the coordinator\'s forwarded read, as the mapping\'s role app, passes the fence');
	like(c(q{SET ROLE app; SELECT tablestore.insert_entity('Apps', '{"PartitionKey":"a1","RowKey":"r2"}')}), qr/^W\//,
		'and its forwarded write');
	on($ao, q{DELETE FROM tablestore_internal.shard_fences});

	# what a session keeps of each function it forwarded is in a memory context of its own (the
	# lookups that work it out are not left in TopMemoryContext)
	is(c(q{SELECT etag IS NOT NULL FROM tablestore.get_entity('Orders', 'p3', '0003');
		SELECT tablestore.upsert_entity('Orders', '{"PartitionKey":"p3","RowKey":"ctx"}') IS NOT NULL;
		SELECT etag IS NOT NULL FROM tablestore.get_entity('Orders', 'p4', '0004');
		SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'tablestore forwarded call' AND parent = 'TopMemoryContext'}),
		"t\nt\nt\n2", 'two functions forwarded: two contexts of forwarded calls');
}

# ---------- 3. away and back while the gateway keeps its map ----------
my $gw = TsMoves::start_gateway($env);
if ($only{3})
{
	c(q{SELECT tablestore.create_table('Probe'); SELECT tablestore.distribute_table('Probe', ARRAY['n1', 'n2', 'n3'], 8)});
	my ($pk) = grep { c("SELECT server FROM tablestore.route('Probe', '$_')") eq 'n1' } map { "q$_" } 0 .. 40;
	my $s = c("SELECT shard FROM tablestore.route('Probe', '$pk')");
	c(qq{SELECT count(tablestore.insert_entity('Probe', format('{"PartitionKey":"$pk","RowKey":"a%s"}', lpad(i::text, 3, '0'))::tablestore.entity))
		FROM generate_series(1, 100) i});
	my %acked = map { split /\|/ } split /\n/, c("SELECT row_key, etag FROM tablestore_data.probe");
	my $http = TsMoves::http();
	is(TsMoves::request($http, $gw, 'GET', "/Probe(PartitionKey='$pk',RowKey='a001')")->{status}, 200,
		"the gateway reads the shard map: $pk (shard $s) on n1");
	my $t_map = time;
	c("CALL tablestore.move_shard('Probe', $s, 'n2')");
	is(c("SELECT server FROM tablestore.route('Probe', '$pk')"), 'n2', "shard $s moved to n2");
	# the move back waits (a transaction on n2 holds back its replication slot) while n1 holds an
	# empty copy: the gateway's map still names n1
	my $hold = $node{n2}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my ($mv_out, $mv_err) = ('', '');
	my $mv = IPC::Run::start([ 'psql', '-X', '-d', $coord->connstr($db), '-c', "CALL tablestore.move_shard('Probe', $s, 'n1', '60 s')" ],
		'>', \$mv_out, '2>', \$mv_err);
	my $copy = 0;
	for (1 .. 200)
	{
		last if ($copy = on('n1', "SELECT count(*) FROM pg_class WHERE relname = 'probe_$s'")) eq '1';
		sleep 0.05;
	}
	is($copy, '1', 'the move back made its copy on n1');
	on('n1', qq{ALTER ROLE "$env->{su}" SET log_statement = 'all'});
	my $n1log = -s $node{n1}->logfile;
	my $missing = 0;
	my @new;
	for my $i (1 .. 20)
	{
		my $res = TsMoves::request($http, $gw, 'POST', '/Probe', encode_json({ PartitionKey => $pk, RowKey => sprintf('b%03d', $i) }),
			Prefer => 'return-no-content');
		if ($res->{status} == 204) { $acked{ sprintf('b%03d', $i) } = $res->{headers}{etag}; push @new, sprintf('b%03d', $i) }
		else { diag("insert answered $res->{status}: $res->{content}") }
		my $page = TsMoves::partition_entities($http, $gw, 'Probe', $pk);
		$missing += ref $page ? scalar(grep { !exists $page->{$_} } keys %acked) : 1000;
	}
	my $age = time - $t_map;
	is(scalar(@new), 20, '20 inserts through the gateway acknowledged during the move back');
	is($missing, 0, 'every page read through the gateway during the move back had every acknowledged entity');
	my $n1_saw = () = slurp_file($node{n1}->logfile, $n1log) =~ /execute gw_insert_entity/g;
	note(sprintf('the gateway map was %.1f s old; n1 was sent %d of the inserts', $age, $n1_saw));
	ok($n1_saw > 0 || $age >= 10, 'the gateway sent calls by its old map to n1, which refused them') or diag("map age $age s");
	on('n1', qq{ALTER ROLE "$env->{su}" RESET log_statement});
	my ($rc, $out, $err) = $node{n1}->psql($db, "SELECT tablestore.insert_entity('Probe', '{\"PartitionKey\":\"$pk\",\"RowKey\":\"direct\"}')");
	like($err, qr/InternalError: shard \d+ of the table "probe" is being copied to this node/, 'n1 refuses a direct call while it is filled');
	$hold->quit;
	$mv->finish;
	ok(!$mv->result, 'the move back succeeds') or diag($mv_err);
	is(c("SELECT server FROM tablestore.route('Probe', '$pk')"), 'n1', "shard $s is on n1 again");
	my %final = map { split /\|/ } split /\n/, c("SELECT row_key, etag FROM tablestore_data.probe");
	is(scalar(grep { ($final{$_} // '') ne $acked{$_} } keys %acked), 0,
		scalar(keys %acked) . ' acknowledged writes, none lost, each with its ETag');
	my $page = TsMoves::partition_entities($http, $gw, 'Probe', $pk);
	is(ref $page ? scalar(keys %$page) : $page, 120, 'the gateway\'s pages have all 120 entities');
	is(join(' ', TsMoves::leftovers($env, 'probe')), '', 'nothing of the two moves is left on the nodes');
}

# ---------- 4. a move past its time limit, cancelled, killed ----------
my $snapshot = sub { c(q{SELECT string_agg(partition_key || '/' || row_key || '/' || etag, ',' ORDER BY partition_key, row_key) FROM tablestore_data.orders}) };
if ($only{4})
{
	my $before = $snapshot->();
	my $s = $shard_of->('p5');
	my $from = c(q{SELECT server FROM tablestore.route('Orders', 'p5')});
	my ($to) = grep { $_ ne $from } qw(n1 n2 n3);
	my $hold = $node{$from}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my $t0 = time;
	my ($rc, $out, $err) = $coord->psql($db, "CALL tablestore.move_shard('Orders', $s, '$to', '3 s')", timeout => 90,
		timed_out => \my $timed_out);
	my $took = time - $t0;
	like($err, qr/the move of shard $s did not finish in 00:00:03/, 'a move past its time limit fails with 57014') or diag($err);
	ok(!$timed_out && $took < 30, sprintf('and ends (%.1f s)', $took));
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'nothing is left on any node: subscriptions, publications, slots, fences, copies');
	is(c(q{SELECT server FROM tablestore.route('Orders', 'p5')}), $from, 'the shard stays where it was');

	# cancelled (pg_cancel_backend) while it waits
	my ($mv_out, $mv_err) = ('', '');
	my $mv = IPC::Run::start([ 'psql', '-X', '-d', $coord->connstr($db), '-c', "CALL tablestore.move_shard('Orders', $s, '$to')" ],
		'>', \$mv_out, '2>', \$mv_err);
	my $pid = '';
	for (1 .. 200)
	{
		$pid = c(q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL tablestore.move_shard%'});
		last if $pid ne '' && on($to, "SELECT count(*) FROM pg_class WHERE relname = 'orders_$s'") eq '1';
		sleep 0.05;
	}
	sleep 0.5;
	c("SELECT pg_cancel_backend($pid)");
	$mv->finish;
	like($mv_err, qr/canceling statement due to user request/, 'a move cancelled by the operator fails') or diag($mv_err);
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'and leaves nothing on any node');

	# killed (its session ends: nothing of it runs after), then move_shard_cleanup
	$mv = IPC::Run::start([ 'psql', '-X', '-d', $coord->connstr($db), '-c', "CALL tablestore.move_shard('Orders', $s, '$to')" ],
		'>', \$mv_out, '2>', \$mv_err);
	for (1 .. 200)
	{
		$pid = c(q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL tablestore.move_shard%'});
		last if $pid ne '' && on($to, "SELECT count(*) FROM pg_class WHERE relname = 'orders_$s'") eq '1';
		sleep 0.05;
	}
	sleep 0.5;
	c("SELECT pg_terminate_backend($pid)");
	$mv->finish;
	$hold->quit;
	# the killed move's statement on the target ends once the slot is made
	for (1 .. 100) { last if on($to, q{SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CREATE SUBSCRIPTION%'}) eq '0'; sleep 0.1 }
	like(join(' ', TsMoves::leftovers($env, 'orders')), qr/(?=.*publications: )(?=.*fences: )/,
		'a move whose session was killed leaves its publication and its fenced copy behind');
	like(c('SELECT etag FROM tablestore.get_entity(\'Orders\', \'p5\', \'0005\')'), qr/^W\//, 'the shard is served meanwhile');
	c("CALL tablestore.move_shard_cleanup('Orders', $s)");
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'move_shard_cleanup removes all of it');
	c("CALL tablestore.move_shard_cleanup('Orders', $s)");
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'and again: nothing to do');

	c("CALL tablestore.move_shard('Orders', $s, '$to')");
	is(c(q{SELECT server FROM tablestore.route('Orders', 'p5')}), $to, "the retry moves shard $s to $to");
	is($snapshot->(), $before, 'every entity is there with its ETag');
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'nothing is left on any node');

	# a switch that committed but whose node steps did not all run: move_shard_cleanup finishes it
	on($to, "INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move) VALUES ('tablestore_shards.orders_$s', 'orders', $s, 'filling', 'test')");
	on($from, "CREATE TABLE tablestore_shards.orders_$s PARTITION OF tablestore_data.orders FOR VALUES WITH (MODULUS 8, REMAINDER $s);
		INSERT INTO tablestore_internal.shard_fences (shard_table, table_key, shard, state, move) VALUES ('tablestore_shards.orders_$s', 'orders', $s, 'moved', 'test')");
	($rc, $out, $err) = $node{$to}->psql($db, q{SELECT etag FROM tablestore.get_entity('Orders', 'p5', '0005')});
	like($err, qr/is being copied to this node/, 'a target left fenced refuses direct calls');
	c("CALL tablestore.move_shard_cleanup('Orders', $s)");
	like(on($to, q{SELECT etag FROM tablestore.get_entity('Orders', 'p5', '0005')}), qr/^W\//, 'move_shard_cleanup: the node the map names serves the shard');
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'and the old node\'s copy is gone');
}

# ---------- 5. a target that falls behind ----------
if ($only{5})
{
	my $s = $shard_of->('p7');
	my $from = c(q{SELECT server FROM tablestore.route('Orders', 'p7')});
	my ($to) = grep { $_ ne $from } qw(n1 n2 n3);
	my ($other) = grep { $shard_of->($_) != $s } map { "p$_" } 1 .. 19;
	# on the target, the replication of rows 'lag...' waits while hold.on, once the copy is done
	on($to, q{CREATE TABLE public.hold (on_ bool); INSERT INTO public.hold VALUES (true);
		CREATE FUNCTION public.lag() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.row_key LIKE 'lag%' AND NOT EXISTS (SELECT FROM pg_catalog.pg_subscription_rel WHERE srsubstate <> 'r') THEN
				WHILE EXISTS (SELECT FROM public.hold WHERE on_) LOOP PERFORM pg_catalog.pg_sleep(0.05); END LOOP;
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER lag BEFORE INSERT ON tablestore_data.orders FOR EACH ROW EXECUTE FUNCTION public.lag();
		ALTER TABLE tablestore_data.orders ENABLE ALWAYS TRIGGER lag;});
	# a writer straight to the source node, and timed calls through the coordinator on another shard
	my $script = "$PostgreSQL::Test::Utils::tmp_check/lag_writer.sql";
	open my $f, '>', $script or die;
	print $f "SELECT tablestore.insert_entity('Orders', '{\"PartitionKey\":\"p7\",\"RowKey\":\"lag$_\"}');\nSELECT pg_sleep(0.01);\n" for 1 .. 1000;
	close $f;
	my ($w_out, $w_err) = ('', '');
	my $writer = IPC::Run::start([ 'psql', '-X', '-q', '-At', '-d', $node{$from}->connstr($db), '-f', $script ], '>', \$w_out, '2>', \$w_err);
	my $probe = "$PostgreSQL::Test::Utils::tmp_check/lag_probe.sql";
	open $f, '>', $probe or die;
	print $f "SELECT etag FROM tablestore.get_entity('Orders', '$other', (SELECT lpad(substr('$other', 2), 4, '0')));\n";
	close $f;
	my $pgbench = IPC::Run::start([ 'pgbench', '-n', '-c', '1', '-T', '14', '-R', '200', '-f', $probe, '-l', "--log-prefix=$PostgreSQL::Test::Utils::tmp_check/lag",
		'-h', $coord->host, '-p', $coord->port, $db ], '>', '/dev/null', '2>&1');
	my ($mv_out, $mv_err) = ('', '');
	my $t0 = time;
	my $mv = IPC::Run::start([ 'psql', '-X', '-d', $coord->connstr($db), '-c', "CALL tablestore.move_shard('Orders', $s, '$to', '60 s')" ],
		'>', \$mv_out, '2>', \$mv_err);
	my $ready = 0;
	for (1 .. 400)
	{
		last if ($ready = on($to, q{SELECT count(*) FILTER (WHERE srsubstate = 'r') = count(*) AND count(*) > 0 FROM pg_subscription_rel})) eq 't';
		sleep 0.02;
	}
	is($ready, 't', 'the copy is done');
	sleep 5;	# the target is behind meanwhile
	is(c(q{SELECT server FROM tablestore.route('Orders', 'p7')}), $from, 'the shard does not switch while the target is behind');
	on($to, q{UPDATE public.hold SET on_ = false});
	$mv->finish;
	$pgbench->finish;
	$writer->finish;
	ok(!$mv->result, 'the move succeeds') or diag($mv_err);
	my @lat = TsMoves::pgbench_latencies(grep { m{/lag\.\d+$} } glob("$PostgreSQL::Test::Utils::tmp_check/lag.*"));
	note(sprintf('calls through the coordinator on another shard during the move: %d, max %.3f s, p99 %.3f s',
		scalar(@lat), $lat[-1] // 0, @lat ? $lat[ int(0.99 * $#lat) ] : 0));
	ok(@lat > 20 && $lat[-1] < 2.5, sprintf('no call on another shard waited more than 2.5 s (max %.3f s)', $lat[-1] // 0));
	my @acked = $w_out =~ /^(W\/\S+)$/mg;
	my $there = c(q{SELECT count(*) FROM tablestore_data.orders WHERE partition_key = 'p7' AND row_key LIKE 'lag%'});
	ok(@acked > 10, scalar(@acked) . ' writes straight to the source were acknowledged before the switch fenced it')
	  or diag("writer: " . substr($w_out, 0, 500) . "\n" . substr($w_err, 0, 1500));
	is($there, scalar(@acked), 'each of them is on the target');
	on($to, q{DROP TRIGGER lag ON tablestore_data.orders; DROP TABLE public.hold});
	is(join(' ', TsMoves::leftovers($env, 'orders')), '', 'nothing is left on any node');
}

# ---------- 6. a soak: mixed writes through the routed gateway, moves every 10 s ----------
if ($only{6})
{
	my $r = TsMoves::soak($env, $gw, seconds => $ENV{TS_MOVES_SOAK_SECONDS} // 40, move_every => 10, clients => 3);
	note(sprintf('soak: %d s, %d operations (%d acknowledged writes, %d answers not 2xx), %d entities, %d moves (%s); '
			. 'slowest gateway call %.3f s; %d calls through the coordinator, max %.3f s, p99 %.3f s',
		$r->{seconds}, $r->{ops}, $r->{acked}, $r->{unknown}, $r->{entities}, scalar(@{ $r->{moves} }),
		join(', ', map { sprintf('%d %s->%s %.1fs%s', $_->{shard}, $_->{from}, $_->{to}, $_->{seconds}, $_->{back} ? ' back' : '') } @{ $r->{moves} }),
		$r->{max_latency} // 0, $r->{coordinator_calls}, $r->{coordinator_max}, $r->{coordinator_p99}));
	note("not 2xx: $_") for @{ $r->{errors} // [] };
	ok(@{ $r->{moves} } >= 2, 'shards moved during the soak');
	is(join('; ', @{ $r->{problems} }), '', 'nothing lost, stale, duplicated or left behind')
	  or diag(join("\n", @{ $r->{examples} // [] }));
}

TsMoves::stop_gateway($gw);
TsMoves::stop_clusters($env);
done_testing();
