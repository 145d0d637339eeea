# test/t/007_parallel_moves.pl - moves that never stall a table (issue 31 items 8 and 11,
# doc/scale-out.md "Moving a shard"): 1 coordinator and 3 nodes, clients writing through the
# routed gateway with a log of what was acknowledged (TsMoves), and timed calls through the
# coordinator on a shard that does not move.
#
# 1. Moves of one table's shards at once: three to one node while one of them cannot finish its
#    copy (a transaction on its source holds its replication slot back), then three to three
#    nodes in a ring (n1 to n2, n2 to n3, n3 to n1) whose slots are held back until all are under
#    way. The others switch and finish while the held one waits; all finish; nothing the
#    clients were told is lost; calls through the coordinator wait at most a moment.
# 2. A lock held on the source's shard table for longer than the move's time limit: the switch
#    backs off (calls through the coordinator on the table keep their pace) and the move fails at
#    its limit, leaving nothing; with the lock released meanwhile, the move finishes.
# 3. A move whose target stops while the target is catching up fails at once (not at its 3-minute
#    limit), and one to a stopped node fails at once; move_shard_cleanup then leaves nothing.
# 4. A move whose coordinator stops mid-move: its subscription stops at its next change (not
#    applied to the fenced copy), and its subscription, publication and replication slot are
#    dropped by the next move of any shard (their lease is gone), not kept holding WAL.
# 5. A move to a node that never held the table: the node gets the table's owner and indexing
#    policy, and indexing_progress tells the truth.
# 6. A move to a server that accepts connections but never answers fails within its
#    connect_timeout (a connection of its own is bounded).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/lib";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use IO::Socket::INET;
use JSON::PP;
use Time::HiRes qw(time sleep);
use Test::More;
use TsMoves;

my $env = TsMoves::start_clusters(db => 'par');
my ($coord, $db) = ($env->{coord}, $env->{db});
my %node = %{ $env->{node} };
my $tmp = $PostgreSQL::Test::Utils::tmp_check;
sub c { return $coord->safe_psql($db, $_[0]) }
sub on { my ($n, $sql) = @_; return $node{$n}->safe_psql($db, $sql) }
# TS_PAR_ONLY=1,3 runs only those parts
my %only = map { $_ => 1 } split /,/, ($ENV{TS_PAR_ONLY} // '1,2,3,4,5,6');

c(q{SELECT tablestore.create_table('Par'); SELECT tablestore.distribute_table('Par', ARRAY['n1', 'n2', 'n3'], 12);
	SET tablestore.allow_multi_node_writes = on;
	SELECT count(tablestore.insert_entity('Par', format('{"PartitionKey":"k%s","RowKey":"%s","pad":"%s"}', i % 120, i, repeat('x', 200))::tablestore.entity))
	FROM generate_series(1, 3600) i;
	SELECT tablestore.insert_entity('Par', '{"PartitionKey":"probe","RowKey":"0001"}');});
my $probe_shard = c(q{SELECT shard FROM tablestore.route('Par', 'probe')});
my $server_of = sub { c("SELECT server FROM tablestore.table_shards('Par') WHERE shard = $_[0]") };
my $shards_on = sub { my ($n) = @_; grep { $_ != $probe_shard } split /\n/, c("SELECT shard FROM tablestore.table_shards('Par') WHERE server = '$n' ORDER BY shard") };
# a shard (not the probe's) on node $n, moved there first when earlier parts left it none
my $shard_on = sub
{
	my ($n, @not) = @_;
	my %skip = map { $_ => 1 } @not;
	my ($s) = grep { !$skip{$_} } $shards_on->($n);
	return $s if defined $s;
	($s) = grep { !$skip{$_} && $_ != $probe_shard } 0 .. 11;
	c("CALL tablestore.move_shard('Par', $s, '$n')");
	return $s;
};

# a move in the background: its psql, output and start
sub move_bg
{
	my ($table, $shard, $to, $timeout) = @_;
	my $m = { shard => $shard, to => $to, from => c("SELECT server FROM tablestore.table_shards('$table') WHERE shard = $shard"),
		out => '', err => '', t0 => time };
	$m->{h} = IPC::Run::start([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $coord->connstr($db), '-c',
		"CALL tablestore.move_shard('$table', $shard, '$to', '$timeout')" ], '>', \$m->{out}, '2>', \$m->{err});
	return $m;
}
sub running { my ($m) = @_; return 0 if defined $m->{seconds}; $m->{h}->pump_nb if $m->{h}->pumpable; return $m->{h}->pumpable }
sub finish_move
{
	my ($m) = @_;
	return $m if defined $m->{seconds};
	$m->{h}->finish;
	$m->{seconds} = time - $m->{t0};
	$m->{ok} = !$m->{h}->result;
	return $m;
}
sub wait_moves
{
	my ($limit, @m) = @_;
	my $end = time + $limit;
	while (time < $end && grep { running($_) } @m) { sleep 0.1 }
	for (@m) { finish_move($_) if !running($_) }
	return scalar grep { defined $_->{seconds} } @m;
}
sub describe { join ', ', map { sprintf('%d %s->%s %s', $_->{shard}, $_->{from}, $_->{to}, defined $_->{seconds} ? sprintf('%.1f s%s', $_->{seconds}, $_->{ok} ? '' : ' FAILED') : 'running') } @_ }

# timed calls through the coordinator on the probe's shard (which no part moves)
sub probe_start
{
	my ($name, $seconds) = @_;
	my $script = "$tmp/$name.sql";
	open my $f, '>', $script or die;
	print $f "SELECT etag FROM tablestore.get_entity('Par', 'probe', '0001');\n";
	close $f;
	unlink glob("$tmp/$name.log*");
	return IPC::Run::start([ 'pgbench', '-n', '-c', '1', '-T', $seconds, '-R', '50', '-f', $script, '-l', "--log-prefix=$tmp/$name.log",
		'-h', $coord->host, '-p', $coord->port, $db ], '>', '/dev/null', '2>&1');
}
sub probe_result
{
	my ($name, $h) = @_;
	$h->finish;
	my @lat = TsMoves::pgbench_latencies(glob("$tmp/$name.log*"));
	return { n => scalar @lat, max => $lat[-1] // 0, p99 => @lat ? $lat[ int(0.99 * $#lat) ] : 0, p90 => @lat ? $lat[ int(0.9 * $#lat) ] : 0 };
}

my $gw = TsMoves::start_gateway($env);

# ---------- 1. moves at once ----------
if ($only{1})
{
	my $dir = "$tmp/par_clients";
	mkdir $dir;
	my $stop = "$dir/stop";			# the clients end once the moves are done
	my @pids = TsMoves::start_clients($gw, 'Par', $dir, time + 600, 3, stop => $stop);
	my $probe = probe_start('par_probe', 45);
	sleep 2;

	# three moves to n3 at once; the one from n1 cannot finish its copy while a transaction runs on n1
	my ($held_shard) = $shards_on->('n1');
	my @from_n2 = $shards_on->('n2');
	my $hold = $node{n1}->background_psql($db);
	$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
	my $held = move_bg('Par', $held_shard, 'n3', '3 min');
	for (1 .. 300)
	{
		last if on('n3', "SELECT count(*) FROM pg_class WHERE relname = 'par_$held_shard'") eq '1';
		sleep 0.05;
	}
	my @others = map { move_bg('Par', $_, 'n3', '3 min') } @from_n2[0, 1];
	my $done = wait_moves(150, @others);
	my $held_running = running($held);
	note('to one node at once: ' . describe($held, @others));
	is($done, 2, 'two moves to n3 finished while a third move to n3 could not finish its copy');
	ok((grep { $_->{ok} } @others) == 2, 'both succeeded') or diag(join "\n", map { $_->{err} } @others);
	ok($held_running, 'meanwhile the held move was still copying');
	$hold->quit;
	wait_moves(150, $held);
	ok($held->{ok}, 'the held move finishes once the transaction ends') or diag($held->{err});

	# three moves to three nodes at once, in a ring (each node the source of one and the target of
	# another), their replication slots held back until all three are under way
	my %on = map { $_ => [ $shards_on->($_) ] } qw(n1 n2 n3);
	my @holds = map { my $h = $node{$_}->background_psql($db); $h->query_safe('BEGIN; SELECT pg_current_xact_id()'); $h } qw(n1 n2 n3);
	my @spread = (move_bg('Par', $on{n1}[0], 'n2', '3 min'), move_bg('Par', $on{n2}[0], 'n3', '3 min'), move_bg('Par', $on{n3}[0], 'n1', '3 min'));
	for my $m (@spread)
	{
		for (1 .. 300)
		{
			last if on($m->{to}, "SELECT count(*) FROM pg_class WHERE relname = 'par_$m->{shard}'") eq '1';
			sleep 0.05;
		}
	}
	sleep 1;
	$_->quit for @holds;
	wait_moves(150, @spread);
	note('to three nodes at once: ' . describe(@spread));
	is(scalar(grep { $_->{ok} } @spread), 3, 'three moves to three nodes at once all succeed') or diag(join "\n", map { $_->{err} } @spread);
	my %expect = map { ($_->{shard} => $_->{to}) } grep { $_->{ok} } $held, @others, @spread;
	is(join(' ', map { "$_:" . $server_of->($_) } sort { $a <=> $b } keys %expect), join(' ', map { "$_:$expect{$_}" } sort { $a <=> $b } keys %expect),
		'each shard is where its last move took it');
	sleep 2;
	open my $f, '>', $stop or die;
	close $f;
	waitpid $_, 0 for @pids;
	my $pr = probe_result('par_probe', $probe);
	my $r = TsMoves::client_findings($dir, 1 .. 3);
	TsMoves::final_check($env, 'Par', $r);
	note(sprintf('clients: %d operations, %d acknowledged writes, %d answers not 2xx, %d entities; slowest gateway call %.3f s',
		$r->{ops}, $r->{acked}, $r->{unknown}, $r->{entities}, $r->{max_latency} // 0));
	note(sprintf('calls through the coordinator on the table meanwhile: %d, p90 %.3f s, p99 %.3f s, max %.3f s', @$pr{qw(n p90 p99 max)}));
	ok($r->{acked} > 50, "the clients' writes were acknowledged throughout ($r->{acked})");
	is(join('; ', @{ $r->{problems} }), '', 'nothing lost, stale, duplicated or left behind') or diag(join "\n", @{ $r->{examples} // [] });
	ok($pr->{n} > 100 && $pr->{max} < 2, sprintf('no call through the coordinator waited 2 s (max %.3f s)', $pr->{max}));
}

# ---------- 2. a lock held on the source's shard table ----------
if ($only{2})
{
	my $s = $shard_on->('n1');
	my $lock = $node{n1}->background_psql($db);
	$lock->query_safe("BEGIN; LOCK TABLE tablestore_shards.par_$s IN ACCESS SHARE MODE");
	my $probe = probe_start('lock_probe', 10);
	my $t0 = time;
	my ($rc, $out, $err) = $coord->psql($db, "CALL tablestore.move_shard('Par', $s, 'n2', '8 s')", timeout => 120, timed_out => \my $timed_out);
	my $took = time - $t0;
	my $pr = probe_result('lock_probe', $probe);
	note(sprintf('a move past its 8 s limit behind a lock: %.1f s; calls through the coordinator meanwhile: %d, p90 %.3f s, p99 %.3f s, max %.3f s',
		$took, @$pr{qw(n p90 p99 max)}));
	like($err, qr/the move of shard $s did not finish in 00:00:08/, 'a move whose source shard stays locked fails at its time limit') or diag($err);
	ok(!$timed_out && $took < 60, sprintf('and ends (%.1f s)', $took));
	# (each switch attempt holds the coordinator's lock while it waits for the source's: one call of
	# this single client waits that long per attempt)
	ok($pr->{n} > 100 && $pr->{p99} < 0.2, sprintf('calls through the coordinator on the table kept their pace meanwhile (p99 %.3f s)', $pr->{p99}));
	is(join(' ', TsMoves::leftovers($env, 'par')), '', 'nothing is left on any node');
	is($server_of->($s), 'n1', 'the shard stays where it was');

	# the lock released while the move retries: it finishes
	my $m = move_bg('Par', $s, 'n2', '2 min');
	sleep 4;
	$lock->quit;
	wait_moves(120, $m);
	ok($m->{ok}, sprintf('with the lock released after 4 s the move finishes (%.1f s)', $m->{seconds} // -1)) or diag($m->{err});
	is($server_of->($s), 'n2', "shard $s is on n2");

	# back-to-back moves to one node (a figure for doc/scale-out.md, no assertion: the launcher's
	# wal_retrieve_retry_interval, 200 ms here, spaces their copies' starts)
	my @secs;
	for my $b (grep { defined } (grep { $_ != $probe_shard && $server_of->($_) ne 'n3' } 0 .. 11)[0 .. 2])
	{
		my $t = time;
		c("CALL tablestore.move_shard('Par', $b, 'n3')");
		push @secs, sprintf('%.2f', time - $t);
	}
	note('back-to-back moves of 300-entity shards to one node: ' . join(', ', @secs) . ' s');
}

# ---------- 3. the target stops ----------
if ($only{3})
{
	my $s = $shard_on->('n1');
	# on n3, the replication of rows 'lag...' waits while hold.on, once the copy is done
	on('n3', q{CREATE TABLE public.hold (on_ bool); INSERT INTO public.hold VALUES (true);
		CREATE FUNCTION public.lag() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.row_key LIKE 'lag%' AND NOT EXISTS (SELECT FROM pg_catalog.pg_subscription_rel WHERE srsubstate <> 'r') THEN
				WHILE EXISTS (SELECT FROM public.hold WHERE on_) LOOP PERFORM pg_catalog.pg_sleep(0.05); END LOOP;
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER lag BEFORE INSERT ON tablestore_data.par FOR EACH ROW EXECUTE FUNCTION public.lag();
		ALTER TABLE tablestore_data.par ENABLE ALWAYS TRIGGER lag;});
	my ($pk) = grep { c("SELECT shard FROM tablestore.route('Par', '$_')") == $s } map { "k$_" } 0 .. 119;
	# The target must be behind when the switch looks, whatever the machine's pace: a lock on the
	# source's shard table holds the switch back (it retries) until a row written after the copy
	# has reached n3 and its apply waits in the trigger; only then is the lock released.
	my $lock = $node{n1}->background_psql($db);
	$lock->query_safe("BEGIN; LOCK TABLE tablestore_shards.par_$s IN ACCESS SHARE MODE");
	my $m = move_bg('Par', $s, 'n3', '3 min');
	for (1 .. 400)
	{
		last if on('n3', q{SELECT count(*) FILTER (WHERE srsubstate = 'r') = count(*) AND count(*) > 0 FROM pg_subscription_rel}) eq 't';
		sleep 0.05;
	}
	$node{n1}->safe_psql($db, qq{SELECT tablestore.insert_entity('Par', '{"PartitionKey":"$pk","RowKey":"lag1"}')});
	my $behind = 0;
	for (1 .. 400)
	{
		$behind = on('n3', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'logical replication worker' AND wait_event = 'PgSleep'});
		last if $behind > 0;
		sleep 0.05;
	}
	ok($behind > 0, "the target's apply waits on a row written after its copy");
	$lock->quit;
	sleep 1.5;
	my $t0 = time;
	$node{n3}->stop('immediate');
	wait_moves(150, $m);
	my $took = time - $t0;
	note(sprintf('a move whose target stopped while it caught up ended %.1f s after the stop: %s', $took, $m->{err} =~ s/\s+/ /gr));
	ok(!$m->{ok} && $took < 60, sprintf('a move whose target stops fails at once, not at its 3-minute limit (%.1f s)', $took));
	is($server_of->($s), 'n1', 'the shard stays where it was');
	# a move to a node that is down
	$t0 = time;
	my ($rc, $out, $err) = $coord->psql($db, "CALL tablestore.move_shard('Par', $s, 'n3', '3 min')", timeout => 170);
	$took = time - $t0;
	ok($rc != 0 && $took < 60, sprintf('a move to a stopped node fails at once (%.1f s)', $took)) or diag($err);
	$node{n3}->start;
	on('n3', q{DROP TRIGGER lag ON tablestore_data.par; DROP FUNCTION public.lag(); DROP TABLE public.hold});
	c("CALL tablestore.move_shard_cleanup('Par', $s)");
	is(join(' ', TsMoves::leftovers($env, 'par')), '', 'after move_shard_cleanup nothing is left on any node');
	c("CALL tablestore.move_shard('Par', $s, 'n3')");
	is($server_of->($s), 'n3', 'and the move then succeeds');
}

# ---------- 4. the coordinator stops mid-move ----------
if ($only{4})
{
	my $s = $shard_on->('n2');
	my $key = c(q{SELECT left(md5('par'), 12)});
	my $job = "tablestore_move_${key}_$s";
	# a lock on the source's shard table keeps the move from switching (it retries meanwhile)
	my $lock = $node{n2}->background_psql($db);
	$lock->query_safe("BEGIN; LOCK TABLE tablestore_shards.par_$s IN ACCESS SHARE MODE");
	my $m = move_bg('Par', $s, 'n1', '3 min');
	for (1 .. 600)
	{
		last if on('n1', "SELECT count(*) FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid "
			. "WHERE s.subname = '$job' AND r.srsubstate = 'r'") eq '1';
		sleep 0.05;
	}
	$coord->stop('fast');
	finish_move($m);
	$lock->quit;
	$coord->start;
	like(join(' ', TsMoves::leftovers($env, 'par')), qr/subscriptions: $job.*slots: $job|slots: $job/,
		'a move whose coordinator stopped leaves its subscription and slot behind') or diag(join ' ', TsMoves::leftovers($env, 'par'));
	# its subscription stops at its next change instead of replicating into the fenced copy
	my ($pk) = grep { c("SELECT shard FROM tablestore.route('Par', '$_')") == $s } map { "k$_" } 0 .. 119;
	on('n2', qq{SELECT tablestore.insert_entity('Par', '{"PartitionKey":"$pk","RowKey":"after_stop"}')});
	my $enabled = '';
	for (1 .. 300)
	{
		last if ($enabled = on('n1', "SELECT subenabled FROM pg_subscription WHERE subname = '$job'")) eq 'f';
		sleep 0.1;
	}
	is($enabled, 'f', 'the dead move\'s subscription stopped at its next change');
	is(on('n1', "SELECT count(*) FROM tablestore_shards.par_$s WHERE row_key = 'after_stop'"), '0', 'which it did not apply to the fenced copy');
	# the next move of any other shard drops them
	my $other = $shard_on->('n3', $s);
	c("CALL tablestore.move_shard('Par', $other, 'n2')");
	my $left = join ' ', map { on($_, "SELECT concat_ws(' ', (SELECT string_agg(subname, ',') FROM pg_subscription), (SELECT string_agg(pubname, ',') FROM pg_publication), "
		. "(SELECT string_agg(slot_name, ',') FROM pg_replication_slots))") } qw(n1 n2 n3);
	is($left =~ s/^\s+|\s+$//gr, '', "the next move (of shard $other) dropped the dead move's subscription, publication and slot");
	c("CALL tablestore.move_shard_cleanup('Par', $s)");
	is(join(' ', TsMoves::leftovers($env, 'par')), '', 'and move_shard_cleanup its fenced copy');
}

# ---------- 5. to a node that never held the table ----------
if ($only{5})
{
	c(q{CREATE ROLE owner1; GRANT CREATE ON SCHEMA tablestore_data TO owner1;});
	# the owner's index builds run as it (as its own CREATE INDEX would): it needs CREATE on the
	# node's schemas of the table and its shards (doc/scale-out.md)
	on($_, q{CREATE ROLE owner1; CREATE ROLE reader1; GRANT CREATE ON SCHEMA tablestore_data, tablestore_shards TO owner1}) for qw(n1 n2 n3);
	c(q{SELECT tablestore.create_table('Pol'); SELECT tablestore.distribute_table('Pol', ARRAY['n1', 'n2'], 4);
		SELECT count(tablestore.insert_entity('Pol', format('{"PartitionKey":"q%s","RowKey":"%s","Age":%s,"Note":"n"}', i % 8, i, i)::tablestore.entity))
		FROM generate_series(1, 400) i WHERE tablestore.shard_of('q' || i % 8, 4) = 0;
		SELECT tablestore.set_indexing_policy('Pol', '{"excludedPaths":[{"path":"/Note/?"}]}');});
	c(q{CALL tablestore.wait_for_indexing('Pol', '3 minutes')});
	on($_, q{ALTER TABLE tablestore_data.pol OWNER TO owner1; GRANT SELECT ON tablestore_data.pol TO reader1}) for qw(n1 n2);
	c(q{CALL tablestore.move_shard('Pol', 0, 'n3')});
	is(on('n3', q{SELECT tablestore.get_indexing_policy('Pol')}), c(q{SELECT tablestore.get_indexing_policy('Pol')}),
		'the node new to the table has its indexing policy');
	c(q{CALL tablestore.wait_for_indexing('Pol', '3 minutes')});
	is(c(q{SELECT tablestore.indexing_progress('Pol')}), '100', 'and indexing_progress is 100 once the node built it');
	is(on('n3', q{SELECT string_agg(pg_get_userbyid(relowner), ',' ORDER BY relname) FROM pg_class WHERE relname IN ('pol', 'pol_0')}),
		'owner1,owner1', 'the node\'s table and shard table belong to the table\'s owner on the other nodes');
	is(on('n3', q{SELECT has_table_privilege('reader1', 'tablestore_data.pol', 'SELECT')::text || has_table_privilege('reader1', 'tablestore_shards.pol_0', 'SELECT')::text}),
		'truetrue', 'with its grants');
	is(c(q{SELECT count(*) FROM tablestore.query_entities('Pol', 'Age ge 0')}), c(q{SELECT count(*) FROM tablestore_data.pol}),
		'the moved rows answer a filter on an indexed property');
}

# ---------- 6. a server that never answers ----------
if ($only{6})
{
	my $listener = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp') or die "listen: $!";
	my $port = $listener->sockport;
	c(qq{CREATE SERVER n4 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$port', dbname '$db', extensions 'tablestore', connect_timeout '3');
		CREATE USER MAPPING FOR PUBLIC SERVER n4 OPTIONS (user '$env->{su}', password_required 'false')});
	my $s = $shard_on->('n1');
	my $t0 = time;
	my ($rc, $out, $err) = $coord->psql($db, "CALL tablestore.move_shard('Par', $s, 'n4', '2 min')", timeout => 90, timed_out => \my $timed_out);
	my $took = time - $t0;
	like($err, qr/could not connect to the node "n4"/, 'a move to a server that accepts connections but never answers fails') or diag($err);
	ok(!$timed_out && $took < 30, sprintf('within its connect_timeout (%.1f s)', $took));
	c(q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL tablestore.move_shard%' AND pid <> pg_backend_pid()});
	c(q{DROP SERVER n4 CASCADE});
	close $listener;
	is(join(' ', TsMoves::leftovers($env, 'par')), '', 'nothing is left on any node');
}

TsMoves::stop_gateway($gw);
TsMoves::stop_clusters($env);
done_testing();
