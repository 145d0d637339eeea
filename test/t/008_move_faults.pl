# test/t/008_move_faults.pl - shard moves against what plain SQL, hung nodes and operators do
# (doc/scale-out.md "Moving a shard", from an outside review of issue 31 items 7, 8 and 11):
# 1 coordinator and 3 nodes, clients through the routed gateway with a log of what was
# acknowledged (TsMoves).
#
# 1. Plain SQL meets the fence: a role with the table's grants (which moves copy to every node)
#    cannot INSERT, UPDATE, DELETE, COPY or TRUNCATE a copy a move is filling or has switched away
#    from, nor SELECT the switched-away copy; a mark of routed_by_coordinator() set by such a role
#    does not carry into the owner's SECURITY DEFINER function; the coordinator's own plain SQL
#    passes while the new owner is still fenced; the move's subscription is gone before the new
#    owner is unfenced. The clients' log: no acknowledged write lost, stale or duplicated.
# 2. The source's move connection stops answering (SIGSTOP) before the switch: the switch gives up
#    within its bound, calls through the coordinator on another node's shard are answered
#    meanwhile, and the move fails within its time limit.
# 3. A server that accepts TCP and never answers, without connect_timeout: a move to it ends within
#    its time limit, and at once when cancelled or terminated.
# 4. A move's leases are its own: ALTER SERVER ... ADD connect_timeout on its target mid-move,
#    keep_connections 'off', and idle_session_timeout on the target fail no move.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/lib";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use Test::More;
use TsMoves;

my $env = TsMoves::start_clusters(db => 'faults');
my ($coord, $db) = ($env->{coord}, $env->{db});
my %node = %{ $env->{node} };
my $tmp = $PostgreSQL::Test::Utils::tmp_check;
sub c { return $coord->safe_psql($db, $_[0]) }
sub on { my ($n, $sql) = @_; return $node{$n}->safe_psql($db, $sql) }
# as the role app on a node: "rc=N out err", one line
sub as_app { my ($n, $sql) = @_; my ($rc, $out, $err) = $node{$n}->psql($db, "SET ROLE app; $sql"); return "rc=$rc $out $err" =~ s/\s+/ /gr }
# TS_FAULTS_ONLY=1,3 runs only those parts
my %only = map { $_ => 1 } split /,/, ($ENV{TS_FAULTS_ONLY} // '1,2,3,4');

c(q{SELECT tablestore.create_table('Tab'); SELECT tablestore.distribute_table('Tab', ARRAY['n1', 'n2', 'n3'], 12);
	SET tablestore.allow_multi_node_writes = on;
	SELECT count(tablestore.insert_entity('Tab', format('{"PartitionKey":"k%s","RowKey":"%s","pad":"%s"}', i % 120, i, repeat('x', 100))::tablestore.entity))
	FROM generate_series(1, 2400) i;});
my $server_of = sub { c("SELECT server FROM tablestore.table_shards('Tab') WHERE shard = $_[0]") };
my $shard_on = sub { my ($n, @not) = @_; my %skip = map { $_ => 1 } @not;
	(grep { !$skip{$_} } split /\n/, c("SELECT shard FROM tablestore.table_shards('Tab') WHERE server = '$n' ORDER BY shard"))[0] };
my $pk_of = sub { my ($s) = @_; (grep { c("SELECT shard FROM tablestore.route('Tab', '$_')") == $s } map { "k$_" } 0 .. 119)[0] };
my $job_of = sub { 'tablestore_move_' . c(q{SELECT left(md5('tab'), 12)}) . "_$_[0]" };

# a move in the background; finish_move waits for its end (at most $limit s: else it is killed)
sub move_bg
{
	my ($shard, $to, $timeout) = @_;
	my $m = { shard => $shard, to => $to, out => '', err => '', t0 => time, timer => IPC::Run::timeout(600) };
	$m->{h} = IPC::Run::start([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $coord->connstr($db), '-c',
		"CALL tablestore.move_shard('Tab', $shard, '$to', '$timeout')" ], '>', \$m->{out}, '2>', \$m->{err}, $m->{timer});
	return $m;
}
sub finish_move
{
	my ($m, $limit) = @_;
	$m->{timer}->start($limit);
	eval { $m->{h}->finish };
	$m->{ended} = !$@;
	if ($@) { $m->{h}->kill_kill; $m->{err} .= " (still running after $limit s: killed)" }
	$m->{seconds} = time - $m->{t0};
	$m->{ok} = $m->{ended} && !$m->{h}->result;
	$m->{err} =~ s/\s+/ /g;
	return $m;
}
sub move_pid { c(q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL tablestore.move_shard%' AND pid <> pg_backend_pid()}) }
sub wait_for { my ($what, $tries) = @_; for (1 .. ($tries // 600)) { return 1 if $what->(); sleep 0.05 } return 0 }

# app: the table's grants on every node (a move copies them to its target), not its owner; a
# SECURITY DEFINER function of the owner that inserts an entity, which app may call
for my $n (qw(n1 n2 n3))
{
	on($n, q{CREATE ROLE app LOGIN;
		GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON tablestore_data.tab TO app;
		CREATE FUNCTION public.add_entity(e text) RETURNS text LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS
			$$ SELECT tablestore.insert_entity('Tab', e::tablestore.entity) $$;
		REVOKE ALL ON FUNCTION public.add_entity(text) FROM PUBLIC; GRANT EXECUTE ON FUNCTION public.add_entity(text) TO app;
		DO $$ DECLARE r regclass; BEGIN
			FOR r IN SELECT oid FROM pg_class WHERE relnamespace = 'tablestore_shards'::regnamespace AND relkind = 'r' LOOP
				EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON %s TO app', r);
			END LOOP; END $$;});
}

# ---------- 1. plain SQL meets the fence ----------
if ($only{1})
{
	my $s = $shard_on->('n1');
	my $pk = $pk_of->($s);
	my $st = "tablestore_shards.tab_$s";
	# clients on partitions of their own in the moving shard, through the routed gateway
	my @pks = split /\n/, c("SELECT 'm' || i FROM generate_series(0, 3000) i WHERE tablestore.shard_of('m' || i, 12) = $s ORDER BY i LIMIT 8");
	my $gw = TsMoves::start_gateway($env);
	my $dir = "$tmp/plain_clients";
	mkdir $dir;
	my $stop = "$dir/stop";
	my @pids = (TsMoves::start_clients($gw, 'Tab', $dir, time + 240, 1, stop => $stop, pks => [ @pks[0 .. 3] ]),
		TsMoves::start_clients($gw, 'Tab', $dir, time + 240, 1, stop => $stop, pks => [ @pks[4 .. 7] ], first => 2));

	# the move n1 -> n2 waits for its replication slot (a transaction on n1) while n2 holds the
	# fenced copy; a lock on n1's table (not its shard: the switch takes that) keeps the move's
	# cleanup from dropping n1's copy after the switch
	my $hold = $node{n1}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my $m = move_bg($s, 'n2', '3 min');
	ok(wait_for(sub { on('n2', "SELECT count(*) FROM tablestore_internal.shard_fences WHERE state = 'filling'") eq '1'
		&& on('n1', q{SELECT count(*) FROM pg_publication}) eq '1' }), "n2 holds a fenced copy of shard $s");
	my $lock = $node{n1}->background_psql($db);
	$lock->query_safe('BEGIN; LOCK TABLE ONLY tablestore_data.tab IN ACCESS SHARE MODE');

	my $fenced = qr/rc=3 .*InternalError: shard $s of the table "tab" is being copied to this node/;
	like(as_app('n2', "INSERT INTO tablestore_data.tab (partition_key, row_key, properties) VALUES ('$pk', 'plain1', '{}')"), $fenced,
		'filling copy: a plain INSERT through the node\'s table is refused');
	like(as_app('n2', "INSERT INTO $st (partition_key, row_key, properties) VALUES ('$pk', 'plain2', '{}')"), $fenced,
		'and one into the shard table');
	my ($rc, $out, $err) = $node{n2}->psql($db, "SET ROLE app; COPY $st (partition_key, row_key, properties) FROM STDIN;\n$pk\tplain3\t{}\n\\.\n");
	like("rc=$rc $err", $fenced, 'and COPY');
	like(as_app('n2', "TRUNCATE $st"), $fenced, 'and TRUNCATE');
	like(as_app('n2', "TRUNCATE tablestore_data.tab"), $fenced, 'and a TRUNCATE of the node\'s table');
	like(as_app('n2', "BEGIN; SELECT tablestore.routed_by_coordinator(1); INSERT INTO $st (partition_key, row_key, properties) VALUES ('$pk', 'plain4', '{}'); COMMIT"),
		$fenced, 'app\'s mark of routed_by_coordinator() does not let its plain SQL pass');
	like(as_app('n2', qq{BEGIN; SELECT tablestore.routed_by_coordinator(1); SELECT public.add_entity('{"PartitionKey":"$pk","RowKey":"definer"}'); COMMIT}),
		$fenced, 'nor the owner\'s SECURITY DEFINER function that app calls after marking (before the fix: written into the filling copy)');
	like(as_app('n2', qq{SELECT public.add_entity('{"PartitionKey":"$pk","RowKey":"definer2"}')}), $fenced, 'nor that function without the mark');
	like(as_app('n2', qq{SELECT public.add_entity(tablestore.routed_by_coordinator('{"PartitionKey":"$pk","RowKey":"definer3"}'::text))}), $fenced,
		'nor with the mark set in its argument');

	$hold->quit;
	ok(wait_for(sub { $server_of->($s) eq 'n2' }, 1200), "the move switched shard $s to n2");
	my $job = $job_of->($s);
	ok(wait_for(sub { on('n2', "SELECT count(*) FROM pg_subscription WHERE subname = '$job'") eq '0' }), 'the move\'s subscription on n2 is dropped');
	is(on('n2', "SELECT state FROM tablestore_internal.shard_fences WHERE shard_table = '$st'::regclass"), 'filling',
		'while n2 is still fenced: the subscription stops before the new owner is unfenced');
	is(on('n1', "SELECT state FROM tablestore_internal.shard_fences WHERE shard_table = '$st'::regclass"), 'moved', 'n1\'s copy is fenced as moved');
	my $moved = qr/rc=3 .*InternalError: shard $s of the table "tab" is moved away from this node/;
	my $rk = on('n1', "SELECT min(row_key) FROM $st WHERE partition_key = '$pk'");
	like(as_app('n1', "UPDATE tablestore_data.tab SET properties = '{\"v\":\"stale\"}' WHERE partition_key = '$pk' AND row_key = '$rk'"), $moved,
		'moved-away copy: a plain UPDATE is refused (before the fix: replicated over a newer write)');
	like(as_app('n1', "DELETE FROM $st WHERE partition_key = '$pk' AND row_key = '$rk'"), $moved, 'and a plain DELETE');
	like(as_app('n1', "INSERT INTO tablestore_data.tab (partition_key, row_key, properties) VALUES ('$pk', 'lostwrite', '{}')"), $moved,
		'and a plain INSERT (before the fix: acknowledged, then dropped with the copy)');
	like(as_app('n1', "TRUNCATE $st"), $moved, 'and TRUNCATE');
	like(as_app('n1', "SELECT count(*) FROM $st"), $moved, 'a plain SELECT of the moved-away shard table is refused (row-level security)');
	like(as_app('n1', "SET row_security = off; SELECT count(*) FROM $st"), qr/rc=3 .*row-level security/, 'also with row_security off');
	note('a plain SELECT through the node\'s partitioned table (the documented limit): '
		  . as_app('n1', "SELECT count(*) FROM tablestore_data.tab WHERE partition_key = '$pk'"));
	# the coordinator's own plain SQL passes the new owner's fence (its transaction is marked)
	c("INSERT INTO tablestore_data.tab (partition_key, row_key, properties) VALUES ('$pk', 'coordplain', '{\"a\":1}')");
	c("UPDATE tablestore_data.tab SET properties = '{\"a\":2}' WHERE partition_key = '$pk' AND row_key = 'coordplain'");
	is(on('n2', "SELECT properties::jsonb ->> 'a' FROM $st WHERE row_key = 'coordplain'"), '2',
		'the coordinator\'s plain INSERT and UPDATE pass the fence of the new owner');
	$lock->quit;
	finish_move($m, 120);
	ok($m->{ok}, sprintf('the move succeeded (%.1f s)', $m->{seconds})) or diag($m->{err});
	is(on('n2', "SELECT count(*) FROM tablestore_internal.shard_fences"), '0', 'n2 is unfenced');
	is(on('n2', "SELECT count(*) FROM pg_trigger WHERE tgrelid = '$st'::regclass AND tgname LIKE 'fence%'")
		. on('n2', "SELECT relrowsecurity::text FROM pg_class WHERE oid = '$st'::regclass"), '0false', 'with its fence\'s triggers');
	like(as_app('n2', "INSERT INTO $st (partition_key, row_key, properties) VALUES ('$pk', 'plainafter', '{}')"), qr/^rc=0/,
		'and plain SQL on the new owner works again');
	is(c("SELECT string_agg(row_key, ',' ORDER BY row_key) FROM tablestore_data.tab WHERE partition_key = '$pk' AND row_key !~ '^[0-9]+\$'"),
		'coordplain,plainafter', 'none of the refused writes is there');
	sleep 2;
	open my $f, '>', $stop or die;
	close $f;
	waitpid $_, 0 for @pids;
	my $r = TsMoves::client_findings($dir, 1, 2);
	TsMoves::final_check($env, 'Tab', $r);
	ok($r->{acked} > 20, "the clients' writes on the moving shard were acknowledged throughout ($r->{acked} of $r->{ops})");
	is(join('; ', @{ $r->{problems} }), '', 'nothing acknowledged lost, stale or duplicated, nothing left behind') or diag(join "\n", @{ $r->{examples} // [] });
	TsMoves::stop_gateway($gw);
}

# ---------- 2. the source hangs at the switch ----------
my @stopped;
END { kill 'CONT', @stopped if @stopped }
if ($only{2})
{
	my $s = $shard_on->('n1');
	my $other = $pk_of->($shard_on->('n2'));
	my $hold = $node{n1}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my $m = move_bg($s, 'n3', '30 s');
	my $lease = '';
	wait_for(sub { ($lease = on('n1', q{SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid::int = hashtext('tablestore.move_lease')})) ne '' });
	ok($lease ne '', 'the move holds its lease on n1, on its own connection');
	ok(wait_for(sub { on('n1', q{SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_create_logical_replication_slot%' AND pid <> pg_backend_pid()}) eq '1' }),
		'the move waits for its slot');
	# that connection's backend stops answering (a hung host), then the copy goes on to the switch
	push @stopped, $lease;
	kill 'STOP', $lease;
	$hold->quit;
	my ($answered, $failed, $slowest) = (0, 0, 0);
	my $probe_end = time + 15;
	while (time < $probe_end)
	{
		my $t0 = time;
		my ($rc, $out, $err) = $coord->psql($db, "SET statement_timeout = '10s'; SELECT count(*) FROM tablestore.get_entity('Tab', '$other', '1')");
		my $dt = time - $t0;
		$slowest = $dt if $dt > $slowest;
		if ($rc == 0 || $err =~ /ResourceNotFound/) { $answered++ } else { $failed++; diag("probe: $err") }
		$m->{gone} //= time if move_pid() eq '';
		sleep 0.1;
	}
	ok($answered > 10 && $failed == 0, sprintf('calls through the coordinator on another node\'s shard answered meanwhile (%d, slowest %.2f s)', $answered, $slowest));
	finish_move($m, 60);
	ok($m->{ended} && !$m->{ok} && $m->{err} =~ /the node "n1" did not answer in time/, 'the move fails: its source did not answer at the switch') or diag($m->{err});
	my $took = ($m->{gone} // time) - $m->{t0};
	ok($took < 30, sprintf('within its time limit of 30 s (ended after %.1f s; before the fix: at SIGCONT)', $took));
	kill 'CONT', $lease;
	@stopped = ();
	is($server_of->($s), 'n1', 'the shard stays on n1');
	c("CALL tablestore.move_shard_cleanup('Tab', $s)");
	is(join(' ', TsMoves::leftovers($env, 'tab')), '', 'nothing left after move_shard_cleanup');
	c("CALL tablestore.move_shard('Tab', $s, 'n3')");
	is($server_of->($s), 'n3', 'and the move then succeeds');
}

# ---------- 3. a server that accepts TCP and never answers ----------
if ($only{3})
{
	my $listener = IO::Socket::INET->new(Listen => 64, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp') or die "listen: $!";
	my $port = $listener->sockport;
	c(qq{CREATE SERVER n4 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$port', dbname '$db', extensions 'tablestore');
		CREATE USER MAPPING FOR PUBLIC SERVER n4 OPTIONS (user '$env->{su}', password_required 'false')});
	my $s = $shard_on->('n1');
	my $m = finish_move(move_bg($s, 'n4', '20 s'), 90);
	ok($m->{ended} && !$m->{ok} && $m->{err} =~ /could not connect to the node "n4"/, 'a move to a server that never answers (no connect_timeout) fails')
		or diag($m->{err});
	ok($m->{seconds} < 20 + 10, sprintf('within its time limit of 20 s (%.1f s; before the fix: running after 40 s)', $m->{seconds}));
	for my $how (qw(cancel terminate))
	{
		$m = move_bg($s, 'n4', '10 min');
		my $pid = '';
		wait_for(sub { ($pid = move_pid()) ne '' });
		sleep 1;
		my $t0 = time;
		c("SELECT pg_${how}_backend($pid)");
		finish_move($m, 60);
		my $took = time - $t0;
		ok($m->{ended} && !$m->{ok} && $took < 10, sprintf('a move to it ends %.1f s after pg_%s_backend (before the fix: running 10 s later)', $took, $how))
			or diag($m->{err});
	}
	c(q{DROP SERVER n4 CASCADE});
	close $listener;
	c("CALL tablestore.move_shard_cleanup('Tab', $s)");
	is(join(' ', TsMoves::leftovers($env, 'tab')), '', 'nothing left after move_shard_cleanup');
}

# ---------- 4. leases that are the move's own ----------
if ($only{4})
{
	# a writer through the coordinator on the moving shard keeps changes flowing
	my $s = $shard_on->('n1');
	my $pk = $pk_of->($s);
	my $script = "$tmp/lease_writer.sql";
	open my $f, '>', $script or die;
	print $f "SELECT tablestore.upsert_entity('Tab', '{\"PartitionKey\":\"$pk\",\"RowKey\":\"w$_\"}');\nSELECT pg_sleep(0.05);\n" for 1 .. 400;
	close $f;
	my $writer = IPC::Run::start([ 'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $coord->connstr($db), '-f', $script ],
		'>', '/dev/null', '2>', "$tmp/lease_writer.err");

	# ALTER SERVER on the target mid-move (doc/scale-out.md asks for connect_timeout), with a lock
	# on the source's shard for 2 s: switch attempts fail and end their transactions meanwhile
	my $hold = $node{n1}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my $m = move_bg($s, 'n2', '2 min');
	ok(wait_for(sub { on('n2', q{SELECT count(*) FROM tablestore_internal.shard_fences}) eq '1' }), 'a move to n2 under way');
	c(q{ALTER SERVER n2 OPTIONS (ADD connect_timeout '10')});
	my $lock = $node{n1}->background_psql($db);
	$lock->query_safe("BEGIN; LOCK TABLE tablestore_shards.tab_$s IN ACCESS SHARE MODE");
	$hold->quit;
	sleep 2;
	$lock->quit;
	finish_move($m, 150);
	ok($m->{ok}, sprintf('ALTER SERVER ... ADD connect_timeout on its target mid-move: the move succeeds (%.1f s; before the fix: failed)', $m->{seconds}))
		or diag($m->{err});

	# keep_connections 'off' on the target (postgres_fdw drops its connection after each transaction)
	c(q{ALTER SERVER n1 OPTIONS (ADD keep_connections 'off')});
	$m = finish_move(move_bg($s, 'n1', '2 min'), 150);
	ok($m->{ok}, sprintf('a move to a server with keep_connections off succeeds (%.1f s; before the fix: failed)', $m->{seconds})) or diag($m->{err});
	c(q{ALTER SERVER n1 OPTIONS (DROP keep_connections)});

	# idle_session_timeout on both nodes while the move waits for its copy
	on($_, qq{ALTER DATABASE $db SET idle_session_timeout = '1s'}) for qw(n1 n3);
	$hold = $node{n1}->background_psql($db);
	$hold->query_safe('SET idle_session_timeout = 0; BEGIN; SELECT pg_current_xact_id()');
	$m = move_bg($s, 'n3', '2 min');
	ok(wait_for(sub { on('n3', q{SELECT count(*) FROM tablestore_internal.shard_fences}) eq '1' }), 'a move to n3 under way');
	sleep 3;
	$hold->quit;
	finish_move($m, 150);
	ok($m->{ok}, sprintf('idle_session_timeout of 1 s on its nodes while it waits 3 s: the move succeeds (%.1f s)', $m->{seconds})) or diag($m->{err});
	on($_, qq{ALTER DATABASE $db RESET idle_session_timeout}) for qw(n1 n3);
	$writer->finish;
	ok(!$writer->result, 'the writer through the coordinator had no error') or diag(slurp_file("$tmp/lease_writer.err"));
	is(c("SELECT count(*) FROM tablestore_data.tab WHERE partition_key = '$pk' AND row_key LIKE 'w%'"), '400', 'and every write of it is there');
	is(join(' ', TsMoves::leftovers($env, 'tab')), '', 'nothing left on any node');
}

TsMoves::stop_clusters($env);
done_testing();
