# test/t/004_scale_out.pl - one table over several nodes (doc/scale-out.md): 1 coordinator and
# 3 nodes, each a cluster of its own on this machine.
#
# 1. The differential run: every regression file (sql/*.sql) runs against the coordinator with
#    tablestore.distribute_new_tables naming the three nodes, so every table the file creates is
#    distributed, each file in fresh databases on all four clusters; its output must be the one
#    node's expected output (test/expected/*.out). The files whose output shows what differs by design
#    (the catalog and plans of the coordinator's relation, the stamp trigger's place) are listed in
#    doc/scale-out.md with the reason; any other difference fails.
# 2. What the issue names beyond that: shard_of against the partitioning, a misrouted row refused
#    on a node, batch atomicity on the owning node, a transaction writing to two nodes refused,
#    filters and continuations in the nodes' Remote SQL with no Filter on the coordinator, a batch
#    and an upsert as one remote call, rows keeping their ETags when a table is distributed and
#    undistributed, drop_table dropping the nodes' parts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use File::Path qw(make_path);
use IPC::Run;
use HTTP::Tiny;
use MIME::Base64 qw(decode_base64);
use Digest::SHA qw(hmac_sha256_base64);
use POSIX ();
use Time::HiRes qw(sleep);
use Test::More;

my $root = $ENV{TS_ROOT} // '.';
my @nodes = map {
	my $n = PostgreSQL::Test::Cluster->new("node$_");
	$n->init;
	$n->append_conf('postgresql.conf', "max_locks_per_transaction = 256\nmax_connections = 40\nwal_level = logical\nmax_wal_senders = 10\nmax_replication_slots = 10\n");
	$n->start;
	$n
} 1 .. 3;
my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->append_conf('postgresql.conf', "max_locks_per_transaction = 512\n");
$coord->start;
my $su = $coord->safe_psql('postgres', 'SELECT current_user');

# a database of this name on every cluster, the coordinator's with the servers of the nodes' ones
sub fresh_dbs
{
	my ($db) = @_;
	for my $c ($coord, @nodes)
	{
		$c->safe_psql('postgres', "DROP DATABASE IF EXISTS $db");
		$c->safe_psql('postgres', "CREATE DATABASE $db");
		$c->safe_psql($db, 'CREATE EXTENSION tablestore');
	}
	my $sql = "CREATE EXTENSION postgres_fdw;\n";
	for my $i (0 .. 2)
	{
		my ($host, $port) = ($nodes[$i]->host, $nodes[$i]->port);
		$sql .= "CREATE SERVER n" . ($i + 1) . " FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
		  . "(host '$host', port '$port', dbname '$db', extensions 'tablestore');\n"
		  . "CREATE USER MAPPING FOR PUBLIC SERVER n" . ($i + 1)
		  . " OPTIONS (user '$su', password_required 'false');\n";
	}
	$coord->safe_psql($db, $sql);
}

# ---------- 1. the differential run ----------

# the files whose differences are by design, with the reason (the same list is in doc/scale-out.md)
my %by_design = (
	batch_rerun => 'counts, in the coordinator\'s statistics, the rows a failed batch updated while finding its first failing operation, and adds a CHECK constraint to the table; the batch runs on a node',
	citus_placeholder => 'plants Citus\'s catalog to show the direct path declining a Citus table; on the coordinator the calls run on the nodes',
	query_plans => 'shows plans: the coordinator scans foreign partitions where one node scans its index',
	stamp_trigger => 'alters and inspects the stamp trigger, which is on the nodes\' tables, not the coordinator\'s',
	tables => 'inspects the relation (relkind, primary key, trigger), a partitioned table on the coordinator',
	user_objects => 'adds triggers, foreign keys, a publication and policies to the table: the coordinator\'s partitioned table gets them, the writes run on the nodes\' tables',
);
# the scenarios whose outcome differs by design, with the reason (also in doc/scale-out.md)
my %scenario_by_design = (
	batch_deadlock_interleaving => 'pauses each write inside the table\'s own indexes (expression indexes placed around its primary key), which a distributed table has on the nodes, not the coordinator',
	dump_restore => 'checks the restored tables\' stamp triggers, which a distributed table has on the nodes (the coordinator\'s dump restores its partitioned table, foreign partitions and servers)',
);
my $pg_regress = $ENV{PG_REGRESS}
  // (`pg_config --pgxs` =~ s{/src/makefiles/pgxs.mk\s*$}{/src/test/regress/pg_regress}r);
my $out = "$PostgreSQL::Test::Utils::tmp_check/distributed_regress";
make_path($out);
my @files = sort map { m{/([^/]+)\.sql$} ? $1 : () } glob("$root/test/sql/*.sql");
ok(@files >= 20, scalar(@files) . " regression files");
for my $f (@files)
{
	fresh_dbs('regress_dist');
	local $ENV{PGHOST} = $coord->host;
	local $ENV{PGPORT} = $coord->port;
	local $ENV{PGOPTIONS} = '-c tablestore.distribute_new_tables=n1,n2,n3 -c tablestore.shard_count=8 '
	  . '-c tablestore.allow_multi_node_writes=on';
	my $rc = system("$pg_regress --inputdir=$root/test --outputdir=$out --use-existing "
		  . "--dbname=regress_dist $f >$out/$f.log 2>&1");
	if ($by_design{$f})
	{
		note("$f: " . ($rc == 0 ? 'same output' : "differs by design ($by_design{$f})"));
		next;
	}
	ok($rc == 0, "$f: a distributed table gives one node's results and errors")
	  or diag(`cat $out/regression.diffs 2>/dev/null | head -80`);
}

# ---------- 1b. the scenario suites on the coordinator ----------

# each scenario script (test/scenario) against the coordinator, every table it creates
# distributed; its databases are made on the nodes too, with the servers, by the fresh_db hook
{
	my $hook = "$PostgreSQL::Test::Utils::tmp_check/fresh_db_hook.sh";
	open my $f, '>', $hook or die "$hook: $!";
	print $f "#!/bin/sh\nset -e\n";
	for my $i (0 .. 2)
	{
		my ($h, $p) = ($nodes[$i]->host, $nodes[$i]->port);
		print $f "psql -X -q -h '$h' -p $p -d postgres -c \"DROP DATABASE IF EXISTS \$1\" -c \"CREATE DATABASE \$1\" >/dev/null\n";
		print $f "psql -X -q -h '$h' -p $p -d \"\$1\" -c 'CREATE EXTENSION tablestore' >/dev/null\n";
		print $f "psql -X -q -d \"\$1\" -c \"CREATE EXTENSION IF NOT EXISTS postgres_fdw\" -c \"CREATE SERVER n" . ($i + 1)
		  . " FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$h', port '$p', dbname '\$1', extensions 'tablestore')\" "
		  . "-c \"CREATE USER MAPPING FOR PUBLIC SERVER n" . ($i + 1) . " OPTIONS (user '$su', password_required 'false')\" >/dev/null\n";
	}
	close $f;
	chmod 0755, $hook;
	for my $script (sort glob("$root/test/scenario/*.sh"))
	{
		my ($name) = $script =~ m{/([^/]+)\.sh$};
		next if $name eq 'lib';
		local $ENV{PGHOST} = $coord->host;
		local $ENV{PGPORT} = $coord->port;
		local $ENV{TS_ROOT} = $root;
		local $ENV{TS_FRESH_DB_HOOK} = $hook;
		local $ENV{PGOPTIONS} = '-c tablestore.distribute_new_tables=n1,n2,n3 -c tablestore.shard_count=8 '
		  . '-c tablestore.allow_multi_node_writes=on';
		my $rc = system("bash $script >$out/scenario_$name.log 2>&1");
		if ($scenario_by_design{$name})
		{
			note("scenario $name: " . ($rc == 0 ? 'passes' : "differs by design ($scenario_by_design{$name})"));
			next;
		}
		ok($rc == 0, "scenario $name on distributed tables") or diag(`tail -15 $out/scenario_$name.log`);
	}
}

# ---------- 2. the rest ----------

fresh_dbs('scale');
my ($n1, $n2, $n3) = @nodes;
sub c { return $coord->safe_psql('scale', $_[0]) }
c(q{SELECT tablestore.create_table('Orders');
	SELECT tablestore.insert_entity('Orders', format('{"PartitionKey":"p%s","RowKey":"%s","Age":%s,"Name":"n%s"}',
		i % 20, lpad(i::text, 4, '0'), i, i)::tablestore.entity) FROM generate_series(1, 400) i;
	CREATE TABLE before AS SELECT partition_key, row_key, etag, "timestamp" FROM tablestore_data.orders;
	SELECT tablestore.distribute_table('Orders', ARRAY['n1', 'n2', 'n3'], 8);});
is(c(q{SELECT count(*) FROM before b JOIN tablestore.query_entities('Orders') q USING (partition_key, row_key, etag, "timestamp")}),
	'400', 'distribute_table moves 400 entities with their ETags and Timestamps');
is(join(',', map { $_->safe_psql('scale', 'SELECT count(*) FROM tablestore_data.orders') } @nodes),
	c(q{SELECT string_agg(n::text, ',' ORDER BY s) FROM (SELECT s, count(*) n FROM (SELECT
		(SELECT server FROM tablestore.route('Orders', partition_key)) s FROM before) x GROUP BY s) y}),
	'each node holds the rows route() names it for');

# shard_of agrees with where PostgreSQL's partitioning puts 100 000 random keys
c(q{CREATE TABLE h (k text COLLATE "C") PARTITION BY HASH (k);
	DO $$ BEGIN FOR i IN 0..7 LOOP EXECUTE format('CREATE TABLE h%s PARTITION OF h FOR VALUES WITH (MODULUS 8, REMAINDER %s)', i, i); END LOOP; END $$;
	INSERT INTO h SELECT md5(random()::text) || chr(32 + (random() * 2000)::int) FROM generate_series(1, 100000);});
is(c(q{SELECT count(*) FROM h WHERE tablestore.shard_of(k, 8)::text <> substr(tableoid::regclass::text, 2)}), '0',
	'shard_of agrees with the partitioning on 100 000 random keys');

# a row of another shard is refused on a node, through SQL and through the functions
my $route = c(q{SELECT server || ' ' || shard FROM tablestore.route('Orders', 'p3')});
my ($owner, $shard) = split / /, $route;
my %node = (n1 => $n1, n2 => $n2, n3 => $n3);
my ($other) = grep { $_ ne $owner } sort keys %node;
my ($rc, $stdout, $stderr) = $node{$other}->psql('scale',
	q{SELECT tablestore.insert_entity('Orders', '{"PartitionKey":"p3","RowKey":"x"}')});
like($stderr, qr/TSX03|InternalError: no partition/, 'a node refuses an entity of a shard it does not hold');
($rc, $stdout, $stderr) = $node{$other}->psql('scale',
	q{INSERT INTO tablestore_data.orders VALUES ('p3', 'y', now(), '', '{}')});
like($stderr, qr/no partition of relation/, 'a node refuses a misrouted row in SQL');
($rc, $stdout, $stderr) = $node{$owner}->psql('scale',
	qq{INSERT INTO tablestore_shards.orders_$shard VALUES ('p4', 'y', now(), '', '{}')});
my $p4shard = c(q{SELECT shard FROM tablestore.route('Orders', 'p4')});
if ($p4shard != $shard)
{
	like($stderr, qr/violates partition constraint|moving row to another partition/, 'a shard table refuses a row of another shard');
}
else
{
	pass('p4 is in the same shard');
}

# batches: atomic on the owning node, one remote call
($rc, $stdout, $stderr) = $coord->psql('scale', q{SELECT tablestore.execute_batch('Orders',
	'[{"op":"insert","entity":{"PartitionKey":"p5","RowKey":"b1"}},{"op":"insert","entity":{"PartitionKey":"p5","RowKey":"0005"}}]')});
like($stderr, qr/operation 1: EntityAlreadyExists/, 'a failing batch names its operation');
is(c(q{SELECT count(*) FROM tablestore.query_entities('Orders', 'PartitionKey eq ''p5'' and RowKey eq ''b1''')}), '0',
	'and writes nothing');
is(c(q{SELECT jsonb_array_length(tablestore.execute_batch('Orders', '[{"op":"insert","entity":{"PartitionKey":"p5","RowKey":"b1"}},
	{"op":"upsert_merge","entity":{"PartitionKey":"p5","RowKey":"0005","x":1}},{"op":"delete","PartitionKey":"p5","RowKey":"0025"}]'))}),
	'3', 'a batch of three operations through the coordinator');

# a transaction writing on two nodes is refused by default
my ($a, $b) = split /\n/, c(q{SELECT min(k) FILTER (WHERE s = 'n1') || E'\n' || min(k) FILTER (WHERE s = 'n2')
	FROM (SELECT 'p' || i AS k, (SELECT server FROM tablestore.route('Orders', 'p' || i)) s FROM generate_series(0, 19) i) x});
($rc, $stdout, $stderr) = $coord->psql('scale', qq{BEGIN;
	SELECT tablestore.insert_entity('Orders', '{"PartitionKey":"$a","RowKey":"t1"}');
	SELECT tablestore.insert_entity('Orders', '{"PartitionKey":"$b","RowKey":"t1"}');
	COMMIT;});
like($stderr, qr/NotSupported: this transaction wrote on the node "n1" and would now write on "n2"/,
	'a transaction writing on two nodes is refused');
is(c(qq{SELECT count(*) FROM tablestore.query_entities('Orders', 'RowKey eq ''t1''')}), '0', 'and nothing of it is written');

# filters and continuations run on the nodes: Remote SQL, no Filter on the coordinator
sub plan_of
{
	my ($args) = @_;
	return c("SELECT tablestore.query_sql($args) AS q \\gset\nEXPLAIN (VERBOSE, COSTS OFF) :q");
}
for my $case (
	[ q{'Orders', 'PartitionKey eq ''p3'' and RowKey eq ''0003'''}, 'point' ],
	[ q{'Orders', 'PartitionKey eq ''p3'' and RowKey ge ''01'' and RowKey lt ''02'''}, 'range' ],
	[ q{'Orders', 'PartitionKey eq ''p3'''}, 'partition scan' ],
	[ q{'Orders', 'Age gt 300', 10, 'p3', '0300'}, 'continuation and property filter' ],
	[ q{'Orders', 'Name ne ''n7'' or Age lt 3 or not (Name eq ''x'')'}, 'property filters with type tests' ],
	[ q{'Orders', 'true and PartitionKey eq ''p3'' and (RowKey eq ''0003'' or false)'}, 'a point under true and false' ])
{
	my $plan = plan_of($case->[0]);
	unlike($plan, qr/^\s*Filter:/m, "$case->[1]: no Filter on the coordinator");
	like($plan, qr/Remote SQL: .*WHERE/, "$case->[1]: the condition is in the Remote SQL");
}
like(plan_of(q{'Orders', 'PartitionKey eq ''p3'''}), qr/Foreign Scan on tablestore_shards\.orders_\d+ orders\n/,
	'a partition scan reads one shard');

# an upsert and a batch are one remote call (statements the node ran for the coordinator)
my $calls = sub {
	my ($sql) = @_;
	my $n = $node{$owner};
	$n->safe_psql('scale', qq{ALTER ROLE "$su" SET log_statement = 'all'});
	my $log = -s $n->logfile;
	c($sql);
	$n->safe_psql('scale', qq{ALTER ROLE "$su" RESET log_statement});
	my $text = slurp_file($n->logfile, $log);
	my @calls = $text =~ /(?:statement|execute [^:]*): (?!SET |START TRANSACTION|COMMIT TRANSACTION|ALTER ROLE)(.{0,60})/g;
	note("the node ran: $_") for @calls;
	return scalar @calls;
};
is($calls->(q{SELECT tablestore.upsert_entity('Orders', '{"PartitionKey":"p3","RowKey":"u1","v":1}')}), 1,
	'an upsert is one remote statement');
is($calls->(q{SELECT tablestore.execute_batch('Orders', (SELECT json_agg(json_build_object('op', 'upsert_replace',
	'entity', json_build_object('PartitionKey', 'p3', 'RowKey', 'b' || i)))::text FROM generate_series(1, 100) i))}), 1,
	'a 100-operation batch is one remote statement');

# the caller's privileges on the coordinator's table are checked before a call is sent on
c(q{CREATE ROLE reader; GRANT SELECT ON tablestore_data.orders TO reader});
($rc, $stdout, $stderr) = $coord->psql('scale', q{SET ROLE reader; SELECT etag IS NOT NULL FROM tablestore.get_entity('Orders', 'p3', '0003')});
is($stdout, 't', 'a reader reads through the coordinator');
for my $call (q{tablestore.delete_entity('Orders', 'p3', '0003')},
	q{tablestore.merge_entity('Orders', '{"PartitionKey":"p3","RowKey":"0003","x":1}')},
	q{tablestore.upsert_entity('Orders', '{"PartitionKey":"p3","RowKey":"0003","x":1}')},
	q{tablestore.execute_batch('Orders', '[{"op":"delete","PartitionKey":"p3","RowKey":"0003"}]')})
{
	($rc, $stdout, $stderr) = $coord->psql('scale', "SET ROLE reader; SELECT $call");
	like($stderr, qr/permission denied for table orders/, "a reader cannot write: $call");
}
is(c(q{SELECT count(*) FROM tablestore.query_entities('Orders', 'PartitionKey eq ''p3'' and RowKey eq ''0003''')}), '1',
	'the entity is still there');

# what distribute_table refuses
c(q{SELECT tablestore.create_table('Scoped'); ALTER TABLE tablestore_data.scoped ENABLE ROW LEVEL SECURITY});
($rc, $stdout, $stderr) = $coord->psql('scale', q{SELECT tablestore.distribute_table('Scoped', ARRAY['n1'], 4)});
like($stderr, qr/InvalidInput: the table "scoped" has row-level security/, 'a table with row-level security is not distributed');
($rc, $stdout, $stderr) = $coord->psql('scale', q{SELECT tablestore.distribute_table('Scoped', ARRAY['n1', 'n2', 'n3'], 2)});
like($stderr, qr/2 shards cannot spread over 3 servers/, 'fewer shards than servers is refused');
c(q{SELECT tablestore.drop_table('Scoped')});

# SIGKILL of the coordinator while batches commit: on the nodes every batch is all or nothing
{
	my $script = "$PostgreSQL::Test::Utils::tmp_check/kill_batches.sql";
	open my $f, '>', $script or die "$script: $!";
	for my $i (1 .. 12000)
	{
		my $ops = join ',', map { sprintf('{"op":"insert","entity":{"PartitionKey":"k%d","RowKey":"%02d"}}', $i % 13, $_) } 1 .. 10;
		$ops =~ s/"RowKey":"/"RowKey":"z${i}_/g;
		print $f "SELECT tablestore.execute_batch('Orders', '[$ops]');\n";
	}
	close $f;
	my $h = IPC::Run::start([ 'psql', '-X', '-q', '-d', $coord->connstr('scale'), '-f', $script ],
		'>', '/dev/null', '2>', '/dev/null');
	sleep 1;
	$coord->kill9;
	$h->finish;
	sleep 3;	# the killed postmaster's backends leave when they see it gone
	$coord->start;
	my @sizes = map { split /\n/, $_->safe_psql('scale',
		q{SELECT count(*) FROM tablestore_data.orders WHERE row_key LIKE 'z%' GROUP BY split_part(row_key, '_', 1)}) } @nodes;
	ok(@sizes > 0, scalar(@sizes) . ' batches landed before the kill');
	is(scalar(grep { $_ != 10 } @sizes), 0, 'every batch on the nodes is whole after the coordinator was killed');
	c(q{SET tablestore.allow_multi_node_writes = on; DELETE FROM tablestore_data.orders WHERE row_key LIKE 'z%'});
}

# concurrent counter increments through the coordinator (read, merge under If-Match, retry on
# UpdateConditionNotSatisfied and on the remote transactions' 40001) equal a serial replay
{
	c(q{SELECT tablestore.create_table('Counters');
		SELECT tablestore.distribute_table('Counters', ARRAY['n1', 'n2', 'n3'], 8);
		SET tablestore.allow_multi_node_writes = on;
		SELECT count(tablestore.insert_entity('Counters', format('{"PartitionKey":"c%s","RowKey":"n","n":0}', i)::tablestore.entity))
		FROM generate_series(0, 5) i;
		CREATE TABLE retries (client int, n int);
		CREATE PROCEDURE bump(client int, times int) LANGUAGE plpgsql AS $$
		DECLARE e record; pk text; tries int := 0;
		BEGIN
			FOR i IN 1 .. times LOOP
				pk := 'c' || ((client + i) % 6);
				LOOP
					BEGIN
						SELECT * INTO e FROM tablestore.get_entity('Counters', pk, 'n');
						PERFORM tablestore.merge_entity('Counters', format('{"PartitionKey":"%s","RowKey":"n","n":%s}', pk,
							tablestore.prop_int32(e.properties, 'n') + 1)::tablestore.entity, e.etag);
						EXIT;
					EXCEPTION WHEN SQLSTATE 'TSP01' OR serialization_failure THEN
						tries := tries + 1;
						IF tries > 100000 THEN RAISE; END IF;
					END;
					COMMIT;	-- a retry needs a new remote transaction (a new REPEATABLE READ snapshot)
				END LOOP;
				COMMIT;
			END LOOP;
			INSERT INTO retries VALUES (client, tries);
		END $$;});
	my @h = map {
		IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $coord->connstr('scale'), '-c', "CALL bump($_, 150)" ],
			'>', '/dev/null', '2>', "$PostgreSQL::Test::Utils::tmp_check/bump_$_.err")
	} 1 .. 4;
	my $failed = 0;
	for (@h) { $_->finish; $failed++ if $_->result }
	is($failed, 0, 'four clients incremented 150 times each') or diag(`cat $PostgreSQL::Test::Utils::tmp_check/bump_*.err`);
	# the serial replay: client c's i-th increment goes to counter (c + i) % 6
	is(c(q{SELECT string_agg(tablestore.prop_int32(properties, 'n')::text, ',' ORDER BY partition_key)
		FROM tablestore.query_entities('Counters')}),
		c(q{SELECT string_agg(n::text, ',' ORDER BY k) FROM (SELECT (c + i) % 6 AS k, count(*) AS n
			FROM generate_series(1, 4) c, generate_series(1, 150) i GROUP BY 1) x}),
		'every counter holds what a serial replay gives');
	note('retries: ' . c(q{SELECT string_agg(client || ':' || n, ' ' ORDER BY client) FROM retries}));
	c(q{SELECT tablestore.drop_table('Counters')});
}

# a shard moves to another node while three clients write through the coordinator: every
# acknowledged write is there afterwards, the shard's rows keep their ETags, the shard is on the
# target and gone from the source
{
	my ($mv_shard, $from) = split / /, c(q{SELECT shard || ' ' || server FROM tablestore.route('Orders', 'k1')});
	my ($to) = grep { $_ ne $from } qw(n1 n2 n3);
	my $before = c(qq{SELECT string_agg(partition_key || '/' || row_key || '/' || etag, ',' ORDER BY partition_key, row_key)
		FROM tablestore_data.orders WHERE tablestore.shard_of(partition_key, 8) = $mv_shard});
	my (@h, @acks);
	for my $w (1 .. 3)
	{
		my $script = "$PostgreSQL::Test::Utils::tmp_check/move_writer_$w.sql";
		open my $f, '>', $script or die "$script: $!";
		print $f "\\set ON_ERROR_STOP 1\n\\o /dev/null\n";
		# enough writes to outlast the move on an idle machine (each takes about 0.4 ms there)
		for my $i (1 .. 10000)
		{
			my $pk = 'k' . ($i % 13);
			print $f "SELECT tablestore.insert_entity('Orders', '{\"PartitionKey\":\"$pk\",\"RowKey\":\"w${w}_$i\"}');\n\\echo ack $pk w${w}_$i\n";
		}
		close $f;
		$acks[$w] = '';
		push @h, IPC::Run::start([ 'psql', '-X', '-q', '-d', $coord->connstr('scale'), '-f', $script ],
			'>', \$acks[$w], '2>', "$PostgreSQL::Test::Utils::tmp_check/move_writer_$w.err");
	}
	sleep 1;
	my $t0 = c('SELECT clock_timestamp()');
	c("CALL tablestore.move_shard('Orders', $mv_shard, '$to')");
	my $t1 = c('SELECT clock_timestamp()');
	$_->finish for @h;
	my @acked = map { [ split / / ] } grep { /^ack / } split /\n/, join('', @acks[1 .. 3]);
	is(scalar(@acked), 30000, 'the writers ran through the move without an error')
	  or diag(`cat $PostgreSQL::Test::Utils::tmp_check/move_writer_*.err`);
	my $during = c(qq{SELECT count(*) FROM tablestore_data.orders WHERE row_key LIKE 'w%'
		AND tablestore.shard_of(partition_key, 8) = $mv_shard AND "timestamp" BETWEEN '$t0' AND '$t1'});
	ok($during > 0, "$during writes to the moving shard landed while it moved");
	my $want = join ',', sort map { "$_->[1]/$_->[2]" } @acked;
	is(c(q{SELECT string_agg(partition_key || '/' || row_key, ',' ORDER BY partition_key || '/' || row_key COLLATE "C")
		FROM tablestore_data.orders WHERE row_key LIKE 'w%'}), $want, 'every acknowledged write is there');
	is(c(q{SELECT server FROM tablestore.route('Orders', 'k1')}), $to, "shard $mv_shard is on $to");
	is($node{$from}->safe_psql('scale', "SELECT count(*) FROM pg_class WHERE relname = 'orders_$mv_shard'"), '0',
		"and gone from $from");
	is(c(qq{SELECT string_agg(partition_key || '/' || row_key || '/' || etag, ',' ORDER BY partition_key, row_key)
		FROM tablestore_data.orders WHERE tablestore.shard_of(partition_key, 8) = $mv_shard AND row_key NOT LIKE 'w%'}),
		$before, 'the shard\'s entities kept their ETags');
	is($node{$to}->safe_psql('scale', q{SELECT count(*) FROM pg_subscription}) . $node{$from}->safe_psql('scale',
		q{SELECT count(*) FROM pg_publication}), '00', 'no subscription or publication is left');
	c(q{SET tablestore.allow_multi_node_writes = on; DELETE FROM tablestore_data.orders WHERE row_key LIKE 'w%'});
}

# tablestore-gateway with the nodes (--node): Get, Update and Delete Entity of a distributed table
# go straight to the node that holds the partition (the coordinator runs none of them), and a
# call for a shard that moved since the gateway read the shard map is answered all the same
{
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my @node_args = map { ('--node', sprintf('n%d=host=%s port=%s dbname=scale', $_ + 1, $nodes[$_]->host, $nodes[$_]->port)) } 0 .. 2;
	$_->safe_psql('scale', qq{ALTER ROLE "$su" SET log_statement = 'all'}) for @nodes;
	my $gw = IPC::Run::start([ 'tablestore-gateway', '--dsn', sprintf('host=%s port=%s dbname=scale', $coord->host, $coord->port),
			'--port', $port, '--log', 'quiet', @node_args ],
		'>', "$PostgreSQL::Test::Utils::tmp_check/gateway.out", '2>&1');
	my $http = HTTP::Tiny->new(timeout => 10);
	my $key = decode_base64('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==');
	my $call = sub {
		my ($method, $path, $body, %h) = @_;
		my $date = POSIX::strftime('%a, %d %b %Y %H:%M:%S GMT', gmtime);
		(my $resource = $path) =~ s/\?.*//;	# the query string is not signed (but comp=)
		my $sig = hmac_sha256_base64("$date\n/devstoreaccount1/devstoreaccount1$resource", $key);
		$sig .= '=' while length($sig) % 4;
		return $http->request($method, "http://127.0.0.1:$port/devstoreaccount1$path", {
			headers => { 'x-ms-date' => $date, 'x-ms-version' => '2019-02-02', Accept => 'application/json;odata=nometadata',
				'Content-Type' => 'application/json', Authorization => "SharedKeyLite devstoreaccount1:$sig", %h },
			defined $body ? (content => $body) : () });
	};
	my $up;
	for (1 .. 50) { $up = $call->('GET', '/Tables')->{status}; last if $up == 200; sleep 0.2 }
	is($up, 200, 'the gateway answers');
	my ($owner) = c(q{SELECT server FROM tablestore.route('Orders', 'p3')});
	my $clog = -s $coord->logfile;
	my $nlog = -s $node{$owner}->logfile;
	is($call->('GET', "/Orders(PartitionKey='p3',RowKey='0003')")->{status}, 200, 'Get Entity through the gateway');
	is($call->('PUT', "/Orders(PartitionKey='p3',RowKey='g1')", '{"v":1}')->{status}, 204, 'Insert Or Replace through the gateway');
	is($call->('PUT', "/Orders(PartitionKey='p3',RowKey='g1')", '{"v":2}', 'If-Match' => '*')->{status}, 204, 'Update Entity through the gateway');
	is($call->('DELETE', "/Orders(PartitionKey='p3',RowKey='g1')", undef, 'If-Match' => '*')->{status}, 204, 'Delete Entity through the gateway');
	is($call->('GET', "/Orders(PartitionKey='p3',RowKey='g1')")->{status}, 404, 'and the entity is gone');
	my $node_ran = () = slurp_file($node{$owner}->logfile, $nlog) =~ /execute gw_(get|write|delete)_entity/g;
	is($node_ran, 5, "the node $owner ran all five");
	my @logs = map { -s $_->logfile } @nodes;
	my $found = grep { $call->('GET', sprintf("/Orders(PartitionKey='p%d',RowKey='%04d')", $_, $_ || 20))->{status} == 200 } 0 .. 19;
	is($found, 20, 'an entity of each of the 20 partitions through the gateway');
	my $on_nodes = 0;
	$on_nodes += () = slurp_file($nodes[$_]->logfile, $logs[$_]) =~ /execute gw_get_entity/g for 0 .. 2;
	is($on_nodes, 20, 'each read straight from its node (the gateway computes the shard as PostgreSQL does)');
	my $coord_ran = () = slurp_file($coord->logfile, $clog) =~ /gw_(get|write|delete)_entity/g;
	is($coord_ran, 0, 'the coordinator ran none of these calls');

	# Insert Entity (the key in the body), a batch and a partition query go to the node too; a
	# query across partitions is the coordinator's (a node refuses it: it holds only some shards)
	my ($owner2) = c(q{SELECT server FROM tablestore.route('Orders', 'p7')});
	my $res;
	$clog = -s $coord->logfile;
	my $n2log = -s $node{$owner2}->logfile;
	is($call->('POST', '/Orders', '{"PartitionKey":"p7","RowKey":"gi1","v":1}', Prefer => 'return-no-content')->{status}, 204,
		'Insert Entity through the gateway');
	my $cs = "--changeset_t\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
	  . "POST http://127.0.0.1:$port/devstoreaccount1/Orders HTTP/1.1\r\nContent-Type: application/json\r\n"
	  . "Accept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n\r\n{\"PartitionKey\":\"p7\",\"RowKey\":\"gb1\"}\r\n"
	  . "--changeset_t--\r\n";
	my $batch = "--batch_t\r\nContent-Type: multipart/mixed; boundary=changeset_t\r\n\r\n$cs--batch_t--\r\n";
	$res = $call->('POST', '/$batch', $batch, 'Content-Type' => 'multipart/mixed; boundary=batch_t');
	is($res->{status}, 202, 'a batch through the gateway') or diag($res->{content});
	$res = $call->('GET', "/Orders()?\$filter=" . 'PartitionKey%20eq%20%27p7%27%20and%20RowKey%20ge%20%27g%27');
	is($res->{status}, 200, 'a partition query through the gateway');
	like($res->{content}, qr/"RowKey":"gb1".*"RowKey":"gi1"/s, 'with the two new entities');
	my $n2 = slurp_file($node{$owner2}->logfile, $n2log);
	my $node_calls = () = $n2 =~ /execute gw_(insert_entity|batch|query_entities)/g;
	is($node_calls, 3, "the node $owner2 ran the insert, the batch and the query");
	$coord_ran = () = slurp_file($coord->logfile, $clog) =~ /gw_(insert_entity|batch|query_entities)/g;
	is($coord_ran, 0, 'the coordinator ran none of them');
	$res = $call->('GET', "/Orders()?\$filter=" . 'RowKey%20eq%20%270001%27%20or%20RowKey%20eq%20%270002%27');
	is($res->{status}, 200, 'a query across partitions through the gateway');
	my $rows = () = $res->{content} =~ /"RowKey":"000[12]"/g;
	is($rows, 2, 'answered by the coordinator with both partitions\' entities');
	($rc, $stdout, $stderr) = $node{$owner2}->psql('scale', q{SELECT count(*) FROM tablestore.query_entities('Orders')});
	like($stderr, qr/TSX03|holds only some shards/, 'a node refuses a query across partitions');

	# the shard moves while the gateway holds the map: the old node answers TSX03, the gateway asks the coordinator
	my $p3shard = c(q{SELECT shard FROM tablestore.route('Orders', 'p3')});
	my ($elsewhere) = grep { $_ ne $owner } qw(n1 n2 n3);
	c("CALL tablestore.move_shard('Orders', $p3shard, '$elsewhere')");
	$res = $call->('GET', "/Orders(PartitionKey='p3',RowKey='0003')");
	is($res->{status}, 200, 'Get Entity of a shard that just moved') or diag($res->{content});
	is($call->('PUT', "/Orders(PartitionKey='p3',RowKey='g2')", '{"v":1}')->{status}, 204, 'and a write to it');
	is(c(q{SELECT count(*) FROM tablestore.query_entities('Orders', 'PartitionKey eq ''p3'' and RowKey eq ''g2''')}), '1',
		'which is on the shard\'s new node');
	$gw->signal('TERM');
	$gw->finish;
	$_->safe_psql('scale', qq{ALTER ROLE "$su" RESET log_statement}) for @nodes;
}

# undistribute: the rows come back with their ETags; drop_table drops the nodes' parts
c(q{CREATE TABLE mid AS SELECT partition_key, row_key, etag FROM tablestore.query_entities('Orders');
	SELECT tablestore.undistribute_table('Orders')});
is(c(q{SELECT relkind FROM pg_class WHERE oid = 'tablestore_data.orders'::regclass}), 'r', 'undistributed: an ordinary table');
is(c(q{SELECT count(*) FROM mid m JOIN tablestore_data.orders o USING (partition_key, row_key, etag)}),
	c(q{SELECT count(*) FROM mid}), 'with every entity and its ETag');
is(join(',', map { $_->safe_psql('scale', q{SELECT count(*) FROM tablestore.tables}) } @nodes), '0,0,0',
	'the nodes\' parts are gone');
c(q{SELECT tablestore.distribute_table('Orders', ARRAY['n2', 'n3'], 4); SELECT tablestore.drop_table('Orders')});
is(join(',', map { $_->safe_psql('scale', q{SELECT count(*) FROM pg_class WHERE relnamespace = 'tablestore_shards'::regnamespace}) } @nodes),
	'0,0,0', 'drop_table drops the shards on the nodes');
is(c(q{SELECT count(*) FROM tablestore.list_tables()}), '0', 'and the registry row');

$coord->stop;
$_->stop for @nodes;
done_testing();
