# test/t/021_index_queue.pl - indexing policy changes never crash the server, never exceed
# tablestore.max_index_builds, survive their worker, and wait for no one's lock (issue 31; doc/
# reliability.md, "Index builds"; src/index_worker.c). One server of its own, whose log is read:
#
#  1. a loop of policy changes while the index is being built (one sequential client, as the
#     attack did through the gateway): every change accepted, no process terminated by a
#     signal, the last policy applied;
#  2. 12 concurrent changes of 12 tables with max_index_builds 2: pg_stat_activity sampled
#     throughout never shows more than 2 index workers, and every change is applied;
#  3. the worker killed in the middle of a build (pg_terminate_backend, then SIGKILL): the work
#     is relaunched by wait_for_indexing, which returns, and no invalid index is left;
#  4. a lock held on a table the worker needs: the worker gives up within its lock timeout, the
#     error and the attempts are shown, the next table is built meanwhile, and the first once
#     the lock is gone; past the attempts, wait_for_indexing says why at once;
#  5. an install of 0.3.0 with a change not applied, updated: the update queues it.
# Every loop is bounded in count; no assertion depends on how long something took.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('iqueue');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 24\nrestart_after_crash = on\n");
$node->start;
my $db = 'iq';
$node->safe_psql('postgres', "CREATE DATABASE $db");
$node->safe_psql($db, 'CREATE EXTENSION tablestore');
sub sq { return $node->safe_psql($db, $_[0]) }

# a table of n entities, whose index takes a while to build
sub load_table
{
	my ($name, $n) = @_;
	sq(qq{SELECT tablestore.create_table('$name');
		INSERT INTO tablestore_data.@{[lc $name]} (partition_key, row_key, properties)
		SELECT 'p' || (i % 100), lpad(i::text, 7, '0'),
			format('{"Code":%s,"Name":"n%s","Note":"%s","Flag":%s}', i, i, repeat('x', 40), (i % 7 = 0)::text)::tablestore.entity
		FROM generate_series(1, $n) i;
		VACUUM ANALYZE tablestore_data.@{[lc $name]};});
}

# the table's entity indexes: "valid excluded" for each, as one string
sub indexes
{
	my ($name) = @_;
	return sq(qq{SELECT coalesce(string_agg(i.indisvalid || ' ' || coalesce(substring(pg_get_indexdef(i.indexrelid) from 'excluded=''([^'']*)'''), '-'),
			',' ORDER BY c.relname), '') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_opclass o ON o.oid = i.indclass[0] WHERE i.indrelid = 'tablestore_data.@{[lc $name]}'::regclass AND o.opcname = 'entity_gin_ops'});
}

sub signals_in_log
{
	my ($from) = @_;
	my @lines = grep { /terminated by signal/ } split /\n/, slurp_file($node->logfile, $from);
	return join("\n", @lines);
}

my $policy_note = '{"excludedPaths":[{"path":"/Note/?"}]}';
my $policy_name = '{"excludedPaths":[{"path":"/Name/?"}]}';

# ---------- 1. changes in a loop while the index is built ----------
load_table('Looped', 150000);
my $log_start = -s $node->logfile;
my ($accepted, @refused) = (0);
srand(31);
for my $i (1 .. 24)
{
	my $p = $i % 2 ? $policy_note : $policy_name;
	my ($rc, $out, $err) = $node->psql($db, "SELECT tablestore.set_indexing_policy('Looped', '$p') ->> 'indexingMode'",
		extra_params => [ '-v', 'ON_ERROR_STOP=1' ], timeout => 60);
	if ($rc == 0 && $out eq 'consistent') { $accepted++ }
	else { push @refused, "change $i: " . ($err =~ s/\n.*//sr) }
	# a change at a random moment of the build: sometimes while it waits, sometimes while it reads
	IPC::Run::run([ 'sleep', sprintf('%.2f', rand(0.7)) ]);
}
is($accepted, 24, 'every change of the loop is accepted during the builds') or diag(join("\n", @refused));
is(signals_in_log($log_start), '', 'no process was terminated by a signal');
sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
is(indexes('Looped'), 'true Name', 'the last policy is applied: one valid index of it, nothing else');
is(sq(q{SELECT count(*) FROM tablestore.index_builds}), '0', 'and nothing is left queued');

# the same through SQL in one transaction each of two changes: the worker starts after the commit
sq(qq{BEGIN; SELECT tablestore.set_indexing_policy('Looped', '$policy_note'); SELECT tablestore.set_indexing_policy('Looped', '{}'); COMMIT;});
sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
is(indexes('Looped'), 'true ', 'two changes in one transaction: the last one applied');

# ---------- 2. max_index_builds under 12 concurrent changes ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 2});
load_table("Many$_", 30000) for 1 .. 12;
sq(q{CREATE TABLE stop_sampling (yes bool);
	-- a transaction per look: an open one would hold back every concurrent build (old snapshots)
	CREATE PROCEDURE sample_workers(polls int, INOUT most int DEFAULT 0, INOUT seen int DEFAULT 0) LANGUAGE plpgsql AS $$
	DECLARE
		n int;
	BEGIN
		FOR i IN 1 .. polls LOOP
			SELECT count(*) INTO n FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND datname = current_database();
			most := greatest(most, n);
			seen := seen + (n > 0)::int;
			EXIT WHEN EXISTS (SELECT 1 FROM stop_sampling);
			COMMIT;
			PERFORM pg_sleep(0.005);
		END LOOP;
	END $$;});
my ($sample_out, $sample_err) = ('', '');
my $sampler = IPC::Run::start([ 'psql', '-X', '-At', '-d', $node->connstr($db), '-c', 'CALL sample_workers(40000)' ],
	'>', \$sample_out, '2>', \$sample_err);
my @changes;
for my $i (1 .. 12)
{
	my ($o, $e) = ('', '');
	push @changes, [ \$o, \$e, IPC::Run::start([ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db),
		'-c', "SELECT tablestore.set_indexing_policy('Many$i', '$policy_name') ->> 'indexingMode'" ], '>', \$o, '2>', \$e) ];
}
my @failed;
for my $c (@changes)
{
	$c->[2]->finish;
	push @failed, ${ $c->[1] } if $c->[2]->result || ${ $c->[0] } !~ /consistent/;
}
is(scalar(@failed), 0, '12 concurrent changes are all accepted (none refused past the limit)') or diag(join("\n", @failed));
sq(qq{CALL tablestore.wait_for_indexing('Many$_', '5 minutes')}) for 1 .. 12;
sq(q{INSERT INTO stop_sampling VALUES (true)});
$sampler->finish;
my ($most, $seen) = split /\|/, $sample_out =~ s/\s+$//r;
note("index workers at once: at most $most ($seen samples saw one)");
ok(defined $seen && $seen > 0, 'the sampler saw the workers run') or diag($sample_err);
ok(defined $most && $most <= 2, 'never more than tablestore.max_index_builds (2) index workers at once') or diag("most: $most");
is(join(',', map { indexes("Many$_") } 1 .. 12), join(',', ('true Name') x 12), 'every change is applied');

# ---------- 3. the worker killed in the middle of a build ----------
sub worker_building
{
	for (1 .. 1200)
	{
		my $pid = sq(q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' AND query LIKE 'CREATE INDEX CONCURRENTLY%'});
		return $pid if $pid ne '';
		IPC::Run::run([ 'sleep', '0.05' ]);
	}
	return '';
}
for my $how ('pg_terminate_backend', 'SIGKILL')
{
	my $policy = $how eq 'SIGKILL' ? $policy_note : $policy_name;
	my $want = $how eq 'SIGKILL' ? 'Note' : 'Name';
	sq(qq{SELECT tablestore.set_indexing_policy('Looped', '$policy')});
	my $pid = worker_building();
	isnt($pid, '', "$how: the worker was caught building");
	if ($how eq 'SIGKILL')
	{
		kill 'KILL', $pid;
		# the postmaster restarts every backend; wait until it accepts connections again
		$node->poll_query_until($db, 'SELECT true') or die 'the server did not come back';
	}
	else
	{
		sq(qq{SELECT pg_terminate_backend($pid)});
	}
	$node->poll_query_until($db, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'})
	  or die 'the worker did not end';
	like(sq(q{SELECT state || ' ' || attempts FROM tablestore.index_builds WHERE table_name = 'Looped'}), qr/^(queued|waiting) 1$/,
		"$how: the change stays queued, its attempt counted");
	is(sq(q{SELECT count(*) FROM tablestore.query_entities('Looped', 'Code ge 1 and Code le 1000')}), '1000',
		"$how: answers are right meanwhile");
	sq(q{CALL tablestore.wait_for_indexing('Looped', '5 minutes')});
	is(indexes('Looped'), "true $want", "$how: wait_for_indexing relaunched the work: the policy applied, no invalid index left");
}

# ---------- 4. a lock held on the table the worker needs ----------
sq(q{ALTER DATABASE iq SET tablestore.max_index_builds = 1});
load_table('Held', 20000);
load_table('Next', 20000);
my $hold = $node->background_psql($db);
$hold->query_safe('BEGIN; LOCK TABLE tablestore_data.held IN SHARE UPDATE EXCLUSIVE MODE');
sq(qq{SELECT tablestore.set_indexing_policy('Held', '$policy_note')});
sq(qq{SELECT tablestore.set_indexing_policy('Next', '$policy_note')});
# one worker (max 1): it claims Held first, gives up on its lock, builds Next meanwhile
sq(q{CALL tablestore.wait_for_indexing('Next', '2 minutes')});
is(indexes('Next'), 'true Note', 'the other table is built while the lock is held (one worker: it did not wait for the lock)');
$node->poll_query_until($db, q{SELECT attempts >= 1 AND last_error IS NOT NULL FROM tablestore.index_builds WHERE table_name = 'Held'})
  or die 'no attempt recorded';
like(sq(q{SELECT state || ': ' || last_error FROM tablestore.index_builds WHERE table_name = 'Held'}),
	qr/^(queued|waiting|running): canceling statement due to lock timeout \(SQLSTATE 55P03\)$/,
	'the held table: its attempt gave up on the lock, which index_builds shows');
is(indexes('Held'), 'true ', 'and its index is unchanged, nothing invalid left');
$hold->query_safe('COMMIT');
sq(q{CALL tablestore.wait_for_indexing('Held', '3 minutes')});
is(indexes('Held'), 'true Note', 'once the lock is gone a retry applies it');

# past its attempts a change is left failed, and wait_for_indexing says why at once
sq(q{ALTER DATABASE iq SET tablestore.index_lock_timeout = 10});
$hold->query_safe('BEGIN; LOCK TABLE tablestore_data.held IN SHARE UPDATE EXCLUSIVE MODE');
sq(q{SELECT tablestore.set_indexing_policy('Held', '{}')});
sq(q{UPDATE tablestore_internal.index_queue SET attempts = 7 WHERE table_key = 'held'});
$node->poll_query_until($db, q{SELECT state = 'failed' FROM tablestore.index_builds WHERE table_name = 'Held'})
  or die 'the change did not fail';
my ($rc, $out, $err) = $node->psql($db, q{CALL tablestore.wait_for_indexing('Held', '1 minute')});
like($err, qr/ServerBusy: the indexing policy of the table "Held" could not be applied: canceling statement due to lock timeout/,
	'failed after its attempts: wait_for_indexing raises the last error');
$hold->query_safe('COMMIT');
$hold->quit;
sq(q{ALTER DATABASE iq RESET tablestore.index_lock_timeout});
sq(q{SELECT tablestore.set_indexing_policy('Held', '{}')});
sq(q{CALL tablestore.wait_for_indexing('Held', '3 minutes')});
is(indexes('Held'), 'true ', 'setting the policy again retries it');

# ---------- 5. the update from 0.3.0 with a change not applied ----------
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', q{CREATE EXTENSION tablestore VERSION '0.3.0';
	SELECT tablestore.create_table('Pending'); SELECT tablestore.create_table('Done');
	INSERT INTO tablestore_data.pending (partition_key, row_key, properties)
	SELECT 'p', lpad(i::text, 5, '0'), format('{"Code":%s}', i)::tablestore.entity FROM generate_series(1, 5000) i;
	-- a change 0.3.0 recorded and whose worker never ran
	UPDATE tablestore.tables SET indexing_policy = '{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/Code/?"}]}'
	WHERE key = 'pending';
	ALTER EXTENSION tablestore UPDATE;});
$node->safe_psql('old', q{CALL tablestore.wait_for_indexing('Pending', '3 minutes')});
is($node->safe_psql('old', q{SELECT tablestore.indexing_progress('Pending') || ' ' || tablestore.indexing_progress('Done')
		|| ' ' || (SELECT count(*) FROM tablestore.index_builds)}), '100 100 0',
	'the update queued the change 0.3.0 had not applied; it is applied, nothing left queued');

is(signals_in_log($log_start) =~ s/.*signal 9: Killed.*\n?//r, '', 'no process was terminated by another signal than the SIGKILL of the test');
$node->stop;
done_testing();
